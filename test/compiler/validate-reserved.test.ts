import { describe, expect, it } from "vitest";
import { compileSource } from "../../compiler/index.js";
import { OWN_TABLE_NAMES } from "../../runtime/own-objects.js";

const schema = (attrs: string) => `table t {
  id    integer @primary_key
  sort  integer ${attrs}
  resource "/t" { ops = [list] }
}
`;

describe("filterable-reserved-name", () => {
  it("refuses @filterable on a column named like a query parameter", () => {
    const r = compileSource(schema("@filterable @sortable"), "t.resource");
    const d = r.diagnostics.filter((x) => x.code === "filterable-reserved-name");
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ severity: "error", span: { line: 3, column: 17 } });
    expect(d[0].message).toContain('"t.sort"');
  });
  it("accepts the same column when it is not filterable", () => {
    const r = compileSource(schema("@sortable"), "t.resource");
    expect(r.diagnostics.filter((x) => x.code === "filterable-reserved-name")).toEqual([]);
  });
});

describe("own-table-name", () => {
  const table = (head: string, map = "") => `table ${head} {
  id integer @primary_key${map}
  resource "/t" { ops = [list] }
}
`;
  it("refuses a table that would have the name of one of resc's own, by its name or its @@map, in any schema", () => {
    for (const own of OWN_TABLE_NAMES) {
      for (const src of [
        table(own),
        table("t", `\n  @@map("${own}")`),
        table("t", `\n  @@map("${own}")\n  @@schema("app")`),
      ]) {
        const d = compileSource(src, "t.resource").diagnostics.filter((x) => x.code === "own-table-name");
        expect(d, src).toHaveLength(1);
        expect(d[0]).toMatchObject({ severity: "error", span: { line: 1, column: 7 } });
        expect(d[0]!.message).toContain(`"${own}"`);
      }
    }
  });
  it("accepts a name that only resembles one", () => {
    for (const name of ["resc_events_archive", "events", "my_resc_events"])
      expect(compileSource(table(name), "t.resource").diagnostics.filter((x) => x.code === "own-table-name")).toEqual(
        [],
      );
  });
});
