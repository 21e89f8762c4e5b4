/**
 * A synthetic schema of N tables in the shape bench/COMPILER.md measures: 10
 * columns each, a reference to the previous table expandable both ways,
 * three indexes, and a resource block with every operation. Deterministic:
 * the same N gives the same text.
 */

/** The `.resource` text of `n` tables. */
export function syntheticSchema(n: number): string {
  const out: string[] = ['api {\n  title   = "Synthetic"\n  version = "1.0.0"\n}\n'];
  for (let i = 1; i <= n; i++) {
    const t = `t${String(i).padStart(4, "0")}`;
    const prev = `t${String(i - 1).padStart(4, "0")}`;
    const ref =
      i > 1
        ? `  prev_id    bigint?     @ref(prev, ${prev}, expandable) @inverse(next_${t}, expandable) @filterable\n`
        : `  prev_id    bigint?     @filterable\n`;
    out.push(
      `/// Table ${i}.\n` +
        `table ${t} {\n` +
        `  id         bigint      @primary_key @default(identity) @sortable\n` +
        ref +
        `  name       text        @filterable @sortable @searchable\n` +
        `  code       varchar(20) @unique @filterable\n` +
        `  amount     numeric(10,2) @filterable @sortable\n` +
        `  active     boolean     @default(true) @filterable\n` +
        `  born_on    date?       @filterable @sortable\n` +
        `  tags       text[]      @default("{}")\n` +
        `  notes      text?\n` +
        `  created_at timestamptz @default(now()) @read_only @sortable\n\n` +
        `  @@index([prev_id])\n  @@index([name])\n  @@index([born_on])\n\n` +
        `  resource "/${t}" {\n    ops = [crud, list]\n  }\n}\n`,
    );
  }
  return out.join("\n");
}
