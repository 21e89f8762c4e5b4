/**
 * The canonical layout of `resc fmt` (docs/decisions/1100-formatter-layout.md),
 * construct by construct, and its refusal of files that do not parse.
 */
import { describe, expect, it } from "vitest";
import { formatSource } from "../../grammar/format/index.js";
import { parse } from "../../grammar/index.js";
import { sameSchema } from "../../grammar/format/same-schema.js";

/** Formats `text`, insisting it is accepted, the schema is unchanged and a second run changes nothing. */
function fmt(text: string): string {
  const r = formatSource(text, "t.resource");
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("\n"));
  expect(sameSchema(parse(text, "t").schema, parse(r.text, "t").schema)).toBe(true);
  const again = formatSource(r.text, "t.resource");
  expect(again.ok && again.text).toBe(r.text);
  return r.text;
}

describe("columns", () => {
  it("aligns names, types and attributes within a group; a blank line starts a new group", () => {
    const input = `table t {
id bigint @primary_key @default(identity)
  title   text @sortable
    labels text[]? @filterable

  a_much_longer_name int
  b text
}`;
    expect(fmt(input)).toBe(`table t {
  id     bigint  @primary_key @default(identity)
  title  text    @sortable
  labels text[]? @filterable

  a_much_longer_name int
  b                  text
}
`);
  });

  it("keeps wrapped attributes wrapped, continuing under the attribute column", () => {
    const input = `table tasks {
  id bigint @primary_key
  list_id bigint @ref(list, lists, expandable) @filterable
       @inverse(tasks, expandable, order: [position], limit: 20)
}`;
    expect(fmt(input)).toBe(`table tasks {
  id      bigint @primary_key
  list_id bigint @ref(list, lists, expandable) @filterable
                 @inverse(tasks, expandable, order: [position], limit: 20)
}
`);
  });

  it("keeps a column called domain a column (its attributes stay on their own line)", () => {
    const input = `table t {\n  id int @primary_key\n  domain text\n    @filterable\n}\n`;
    const out = fmt(input);
    expect(out).toBe(`table t {\n  id     int  @primary_key\n  domain text\n              @filterable\n}\n`);
    expect(parse(out, "t").schema.tables[0]!.columns.map((c) => c.name)).toEqual(["id", "domain"]);
  });

  it("spells types canonically spaced: words apart, modifiers, brackets and ? together", () => {
    const input = `table t {\n  a numeric( 6 , 2 ) ?\n  b double   precision [ ] [ ]\n}`;
    expect(fmt(input)).toBe(`table t {\n  a numeric(6,2)?\n  b double precision[][]\n}\n`);
  });

  it("prints calls and SQL values exactly as written (their text is the default's SQL)", () => {
    const input = `table t {\n  a int @default(nextval( 's'::regclass ))\n  b timestamptz @default(now( ))\n}`;
    expect(fmt(input)).toContain("@default(nextval( 's'::regclass ))");
    expect(fmt(input)).toContain("@default(now( ))");
  });

  it("normalizes lists and arguments: commas, no inner padding, -name", () => {
    const input = `table t {\n  a int @inverse( x expandable order: [ b - c ] limit:3 )\n}`;
    expect(fmt(input)).toBe(`table t {\n  a int @inverse(x, expandable, order: [b, -c], limit: 3)\n}\n`);
  });
});

describe("tables", () => {
  it("puts columns first, then table attributes, then the resource block", () => {
    const input = `table t {
  resource "/t" { ops = [reads] }
  @@index([b])
  a int @primary_key
  @@unique([a, b])
  b text
}`;
    expect(fmt(input)).toBe(`table t {
  a int  @primary_key
  b text

  @@index([b])
  @@unique([a, b])

  resource "/t" { ops = [reads] }
}
`);
  });

  it("moves a member together with its doc comment, which stays attached", () => {
    const input = `table t {
  /// The key.
  a int @primary_key
  @@index([b]) // the index
  /// Shown in the OpenAPI description.
  b text
}`;
    const out = fmt(input);
    expect(out).toBe(`table t {
  /// The key.
  a int  @primary_key
  /// Shown in the OpenAPI description.
  b text

  @@index([b])  // the index
}
`);
    expect(parse(out, "t").schema.tables[0]!.columns[1]!.doc).toBe("Shown in the OpenAPI description.");
  });

  it("expands a settings block written over lines, aligning the = signs", () => {
    const input = `table t {\n  a int @primary_key\n  resource "/t" {\n ops = [crud, list], default_sort = [-a]\n max_page_size=10 }\n}`;
    expect(fmt(input)).toBe(`table t {
  a int @primary_key

  resource "/t" {
    ops           = [crud, list]
    default_sort  = [-a]
    max_page_size = 10
  }
}
`);
  });

  it("writes an empty table as {}", () => {
    expect(fmt("table t {   }")).toBe("table t {}\n");
  });
});

describe("top level", () => {
  it("keeps one-line enums and settings blocks on one line, and separates multi-line declarations by a blank line", () => {
    const input = `enum a { x, y, "Z-1" }
domain year integer   @check("VALUE > 1900")
domain small smallint
api {
  title = "T"
  security bearerAuth {scheme="bearer" bearer_format="JWT"}
}
generate { dir = "out" }`;
    expect(fmt(input)).toBe(`enum a { x y "Z-1" }
domain year integer @check("VALUE > 1900")
domain small smallint

api {
  title = "T"
  security bearerAuth { scheme = "bearer", bearer_format = "JWT" }
}

generate { dir = "out" }
`);
  });

  it("expands an enum written over several lines, one value per line", () => {
    expect(fmt("enum e {\n a b\n c }")).toBe("enum e {\n  a\n  b\n  c\n}\n");
  });

  it("keeps at most one blank line and ends the file with one newline", () => {
    expect(fmt("\n\n\nenum a { x }\n\n\n\nenum b { y }\n\n\n")).toBe("enum a { x }\n\nenum b { y }\n");
    expect(fmt("")).toBe("");
  });

  it("uses \\n line ends", () => {
    expect(fmt("enum a {\r\n  x\r\n}\r\n")).toBe("enum a {\n  x\n}\n");
  });
});

describe("comments", () => {
  it("keeps leading, trailing, dangling and header comments in place, trailing ones aligned", () => {
    const input = `// header

/* block
   comment */
generate { // where
  dir = "g"    // the root
  package = "p" /* short */
  // last
}`;
    expect(fmt(input)).toBe(`// header

/* block
   comment */
generate { // where
  dir     = "g"  // the root
  package = "p"  /* short */
  // last
}
`);
  });

  it("turns a trailing doc comment into a leading one: it documents what follows", () => {
    const out = fmt(`table t {\n  a int /// doc of b\n  b int\n}`);
    expect(out).toBe(`table t {\n  a int\n  /// doc of b\n  b int\n}\n`);
    expect(parse(out, "t").schema.tables[0]!.columns[1]!.doc).toBe("doc of b");
  });

  it("keeps block comments inline in a list and expands a list holding a line comment", () => {
    expect(fmt(`table t {\n  a int @ref(r, t, /* why */ expandable)\n}`)).toBe(
      `table t {\n  a int @ref(r, t, /* why */ expandable)\n}\n`,
    );
    expect(
      fmt(`table t {\n  a int @primary_key\n  resource "/t" {\n    ops = [list, // the list\n read]\n  }\n}`),
    ).toBe(
      `table t {\n  a int @primary_key\n\n  resource "/t" {\n    ops = [\n      list,  // the list\n      read\n    ]\n  }\n}\n`,
    );
  });

  it("keeps comments between attributes of a column", () => {
    const input = `table t {\n  a int @primary_key // the key\n    // and then\n    @unique\n  bb int\n}`;
    expect(fmt(input)).toBe(
      `table t {\n  a  int @primary_key  // the key\n         // and then\n         @unique\n  bb int\n}\n`,
    );
  });

  it("places a comment in an odd spot inside a construct without losing it", () => {
    const out = fmt(`table t {\n  a // odd\n int\n  b /* odd */ text\n}`);
    expect(out).toContain("// odd");
    expect(out).toContain("/* odd */");
  });
});

describe("refusal", () => {
  it("refuses a file with a syntax error and says why", () => {
    const r = formatSource(`table t {\n  a int @primary_key\n`, "broken.resource");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics.map((d) => d.code)).toEqual(["missing-brace"]);
  });

  it("refuses a file with a lexical error", () => {
    const r = formatSource(`table t {\n  a int # no\n}`, "broken.resource");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics[0]!.code).toBe("unexpected-character");
  });

  it("formats a file whose only errors are about meaning (an unknown attribute)", () => {
    const r = formatSource(`table t {\n  a   int @sortabel\n}`, "t.resource");
    expect(r).toEqual({ ok: true, text: `table t {\n  a int @sortabel\n}\n`, changed: true });
  });
});
