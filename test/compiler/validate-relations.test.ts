import { describe, expect, it } from "vitest";
import { check, expectOne } from "./helpers.js";

const parent = `
table authors {
  id    bigint @primary_key
  code  text @unique
  name  text
  bio   text
  resource "/authors" { ops = [list] }
}
`;

const child = (column: string) => `${parent}
table books {
  id bigint @primary_key
  ${column}
  @@index([author_id])
  resource "/books" { ops = [list] }
}
`;

describe("references (spec: Column capabilities, Ref)", () => {
  it("accepts a reference to the target's primary key and one to a unique column", () => {
    expect(check(child("author_id bigint @ref(author, authors, expandable) @filterable"))).toEqual([]);
    expect(check(child("author_id text @ref(author, authors, column: code) @filterable"))).toEqual([]);
  });

  it("accepts integer types of different widths (decision 0203)", () => {
    expect(check(child("author_id integer @ref(author, authors)"))).toEqual([]);
  });

  it("refuses an unknown target table", () => {
    const src = child("author_id bigint @ref(author, writers)");
    expectOne(check(src), src, "unknown-ref-target", {
      message: '@ref on "books.author_id" names table "writers", which is not declared',
      at: "@ref",
    });
  });

  it("refuses an unknown target column", () => {
    const src = child("author_id bigint @ref(author, authors, column: nope)");
    expectOne(check(src), src, "unknown-ref-column", {
      message: '@ref on "books.author_id" names column "nope", which is not a column of table "authors"',
      at: "@ref",
    });
  });

  it("refuses a target column that is not a key", () => {
    const src = child("author_id text @ref(author, authors, column: name)");
    expectOne(check(src), src, "ref-target-not-unique", {
      message: '@ref on "books.author_id" points at "authors.name", which is neither the primary key nor unique',
      at: "@ref",
    });
  });

  it("refuses incompatible types", () => {
    const src = child("author_id uuid @ref(author, authors)");
    expectOne(check(src), src, "ref-type-mismatch", {
      message: '"books.author_id" has type "uuid" but references "authors.id" of type "bigint"',
      at: "@ref",
    });
  });

  it("needs column: when the target key is composite", () => {
    const src = `
table pairs {
  a bigint
  b bigint
  @@primary_key([a, b])
}
table uses {
  id bigint @primary_key
  a  bigint @ref(pair, pairs)
  @@index([a])
}
`;
    expectOne(check(src), src, "ref-target-column-required", {
      message:
        '@ref on "uses.a" must name the referenced column with "column:": table "pairs" has a composite primary key (a, b)',
      at: "@ref",
    });
  });
});

describe("inverse relations and relation names (spec: Column capabilities, Inverse)", () => {
  it("accepts declared inverse names that collide with nothing", () => {
    const src = child("author_id bigint @ref(author, authors) @filterable @inverse(books, expandable)");
    expect(check(src)).toEqual([]);
  });

  it("refuses @inverse without @ref", () => {
    const src = child("author_id bigint @filterable @inverse(books)");
    expectOne(check(src), src, "inverse-without-ref", {
      message:
        '@inverse on "books.author_id" needs a @ref on the same column: an inverse relation is the reverse of a reference',
      at: "@inverse",
    });
  });

  it("refuses an inverse name that is a column of the target", () => {
    const src = child("author_id bigint @ref(author, authors) @filterable @inverse(bio)");
    expectOne(check(src), src, "relation-name-collides-with-column", {
      message: 'Inverse relation "bio" (declared on "books.author_id") has the name of column "authors.bio"',
      at: "@inverse",
    });
  });

  it("refuses a forward relation named like a column of its own table", () => {
    const src = child("author_id bigint @ref(author_id, authors) @filterable");
    expectOne(check(src), src, "relation-name-collides-with-column", {
      message: 'Forward relation "author_id" (declared on "books.author_id") has the name of column "books.author_id"',
      at: "@ref",
    });
  });

  it("refuses two inverse relations of the same name on one target", () => {
    const src = child(
      "author_id bigint @ref(author, authors) @filterable @inverse(books)\n  editor_id bigint @ref(editor, authors) @filterable @inverse(books)\n  @@index([editor_id])",
    );
    expectOne(check(src), src, "duplicate-relation-name", {
      message: 'Table "authors" already has an inverse relation "books" (declared on "books.author_id")',
      at: "@inverse",
      nth: 2,
    });
  });

  it("refuses two forward relations of the same name in one table", () => {
    const src = child(
      "author_id bigint @ref(author, authors) @filterable\n  editor_id bigint @ref(author, authors) @filterable\n  @@index([editor_id])",
    );
    expectOne(check(src), src, "duplicate-relation-name", {
      message: 'Table "books" already has a forward relation "author" (declared on "books.author_id")',
      at: "@ref",
      nth: 2,
    });
  });
});

describe("reference targets that are not stored", () => {
  it("refuses a reference to a computed column", () => {
    const src = `${parent.replace("bio   text", 'bio   text @computed("upper(name)")')}
table books {
  id        bigint @primary_key
  author_id text @ref(author, authors, column: bio)
  @@index([author_id])
}
`;
    expectOne(check(src), src, "ref-target-computed", {
      message: '@ref on "books.author_id" points at computed column "authors.bio", which is not stored',
      at: "@ref",
    });
  });
});
