import { describe, expect, it } from "vitest";
import { compileSource } from "../../compiler/index.js";

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
