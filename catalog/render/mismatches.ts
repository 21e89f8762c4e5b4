/**
 * The live schema check's sentences (`resc dev --database-url`, `resc serve`'s /ready): one per object a schema
 * declares that the database lacks, from the steps of the differ's presence-only mode (`diffCatalogs` with
 * `presence`, each step's `adds`). Extra objects in the database are fine and never worded: resc describes an
 * existing database, it does not own it (docs/decisions/1375-catalog-room.md).
 */
import { OWN_TABLES } from "../../runtime/own-objects.js";
import type { Missing, Step } from "../diff.js";
import { placedKey, type Catalog, type Placed } from "../model.js";

/** How an object is named in a sentence: `name` in `public` (or through the search path), `ns.name` elsewhere. */
const shown = (x: Placed): string => placedKey(x);

/** One sentence for one missing object. */
function sentence(m: Missing): string {
  switch (m.kind) {
    case "enum":
      return `enum type "${shown(m.enum)}" is missing`;
    case "enum-value":
      return `enum "${shown(m.enum)}" has no value "${m.value}"`;
    case "domain":
      return `domain "${shown(m.domain)}" is missing`;
    case "table": {
      const own = OWN_TABLES.find((t) => t.name === m.table.name && m.table.schema === "public");
      return own !== undefined
        ? `table "${own.name}", ${own.holds}, is missing (resc migrate diff adds it)`
        : `table "${shown(m.table)}" is missing`;
    }
    case "column":
      return `column "${shown(m.table)}.${m.column}" is missing`;
    case "capture":
      return `table "${shown(m.table)}" declares events but has no change capture trigger (resc migrate diff adds it)`;
    case "index":
      return `index on "${shown(m.table)}" (${m.columns.join(", ")}) using ${m.method} is missing`;
  }
}

/** Where a sentence goes: types first, then resc's own tables, then each declared table's in declaration order. */
const RANK: Record<Missing["kind"], number> = {
  enum: 0,
  "enum-value": 0,
  domain: 1,
  table: 3,
  column: 4,
  capture: 5,
  index: 6,
};

/**
 * The sentences for `steps` (the presence-only comparison's, against `declared`): enum types and their values,
 * domains, resc's own tables, then for each table of `declared` in its order the table, or its columns, its change
 * capture trigger and its indexes.
 */
export function mismatchSentences(steps: readonly Step[], declared: Catalog): string[] {
  const order = new Map(declared.tables.map((t, i) => [placedKey(t), i]));
  const place = (m: Missing): [number, number, number] => {
    if (m.kind === "enum" || m.kind === "enum-value" || m.kind === "domain") return [RANK[m.kind], 0, 0];
    const own = m.kind === "table" && OWN_TABLES.some((t) => t.name === m.table.name);
    return own ? [2, 0, 0] : [3, order.get(placedKey(m.table)) ?? order.size, RANK[m.kind]];
  };
  const missing = steps.flatMap((s) => (s.adds !== undefined ? [s.adds] : []));
  const placed = missing.map((m, i) => ({ m, at: place(m), i }));
  placed.sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1] || a.at[2] - b.at[2] || a.i - b.i);
  return placed.map((p) => sentence(p.m));
}
