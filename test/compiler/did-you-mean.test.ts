/**
 * "Did you mean" on every name that is not declared (docs/decisions/0130-one-slip-one-error.md): tables
 * and columns a reference, index, sort or setting names, and settings
 * written as part of a longer name.
 */
import { describe, expect, it } from "vitest";
import { compileSource } from "../../compiler/index.js";

const messages = (text: string): string[] =>
  compileSource(text, "t.resource")
    .diagnostics.filter((d) => d.severity === "error")
    .map((d) => d.message);

const AUTHORS = "table authors {\n  id bigint @primary_key\n  name text\n}\n";

describe("did you mean", () => {
  it("a referenced table", () => {
    const m = messages(
      `${AUTHORS}table posts {\n  id bigint @primary_key\n  author_id bigint @ref(author, author)\n}\n`,
    );
    expect(m).toEqual([
      '@ref on "posts.author_id" names table "author", which is not declared. Did you mean "authors"?',
    ]);
  });

  it("a referenced column", () => {
    const m = messages(
      `${AUTHORS}table posts {\n  id bigint @primary_key\n  author bigint @ref(writer, authors, column: nmae)\n}\n`,
    );
    expect(m[0]).toMatch(/names column "nmae".*Did you mean "name"\?$/);
  });

  it("a sort column and an index column", () => {
    const m = messages(
      `table posts {\n  id bigint @primary_key\n  title text @sortable\n  @@index([titel])\n  resource "/posts" {\n    ops = [list]\n    default_sort = [tilte]\n  }\n}\n`,
    );
    expect(m).toEqual([
      '@@index names "titel", which is not a column of table "posts". Did you mean "title"?',
      '"default_sort" names "tilte", which is not a column of table "posts". Did you mean "title"?',
    ]);
  });

  it("a setting written as part of a longer name", () => {
    const m = messages(
      `table posts {\n  id bigint @primary_key\n  resource "/posts" {\n    ops = [list]\n    page_size = 10\n  }\n}\n`,
    );
    expect(m).toEqual(['Unknown resource setting "page_size". Did you mean "default_page_size" or "max_page_size"?']);
  });

  it("but not a name that is merely short and different", () => {
    const m = messages(`table t {\n  id bigint @primary_key\n  a text\n  @@index([b])\n}\n`);
    expect(m).toEqual(['@@index names "b", which is not a column of table "t"']);
  });
});
