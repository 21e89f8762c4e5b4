/**
 * Expanded rows of a list page are the text a read returns, on every
 * expandable relation of Pagila (real data: numerics, an enum, a domain,
 * text arrays, timestamps). A page reads each relation once and, where the
 * target's members allow, sends each target row as the array of its
 * members for Node to write (docs/decisions/1340-expansions-per-page.md,
 * docs/decisions/1346-expanded-rows-as-member-arrays.md); a read builds
 * the objects in PostgreSQL. Both must give the same bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import { compileList, compileRead } from "../../runtime/sql/index.js";
import { rowTexts, listQuery } from "../sql/fixture.js";
import { setupPagila, type PagilaContext } from "./setup.js";

let ctx: PagilaContext;
beforeAll(async () => {
  ctx = await setupPagila("expansions");
});
afterAll(async () => {
  await ctx?.drop();
});

const table = (service: ServiceDescriptor, name: string): TableDescriptor => {
  const t = service.tables.find((x) => x.name === name);
  if (!t) throw new Error(`no table ${name}`);
  return t;
};

/** Every exposed table's expandable relations, each on its own, and all of them at once. */
function expansions(service: ServiceDescriptor): [TableDescriptor, string[]][] {
  const out: [TableDescriptor, string[]][] = [];
  for (const t of service.tables) {
    if (!t.resource) continue;
    const names = t.relations.filter((r) => r.expandable).map((r) => r.name);
    for (const n of names) out.push([t, [n]]);
    if (names.length > 1) out.push([t, names]);
  }
  return out;
}

/** The JSON text of member `name` inside the row object `row` (written by encodeRow: no whitespace). */
function memberText(row: string, name: string, next: string | undefined): string {
  const start = row.indexOf(`${JSON.stringify(name)}:`) + JSON.stringify(name).length + 1;
  const end = next === undefined ? row.length - 1 : row.indexOf(`,${JSON.stringify(next)}:`, start);
  return row.slice(start, end);
}

describe("Pagila: a page's expanded rows", () => {
  it("are byte for byte what a read of each row returns, on every expandable relation", async () => {
    const { service, db } = ctx;
    let compared = 0;
    for (const [t, expand] of expansions(service)) {
      const key = t.primaryKey;
      const query = listQuery({ sort: key.map((column) => ({ column, descending: false })), perPage: 25, expand });
      const page = await rowTexts(db.executor, compileList(service, t, query).rows);
      expect(page.length, `${t.name} ${expand}`).toBeGreaterThan(0);
      if (key.length !== 1) {
        // A composite key has no read by one value: each forward expansion is compared with a read of its target.
        for (const text of page) {
          const row = JSON.parse(text) as Record<string, unknown>;
          for (const name of expand) {
            const rel = t.relations.find((r) => r.name === name)!;
            if (rel.kind !== "forward") continue;
            const target = table(service, rel.target);
            const read = await rowTexts(db.executor, compileRead(service, target, row[rel.column] as number));
            const members = Object.keys(row);
            const expected = read.length === 0 ? "null" : read[0];
            expect(memberText(text, name, members[members.indexOf(name) + 1]), `${t.name}.${name}`).toBe(expected);
            compared++;
          }
        }
        continue;
      }
      for (const text of page) {
        const id = (JSON.parse(text) as Record<string, number | string>)[key[0]!]!;
        expect(await rowTexts(db.executor, compileRead(service, t, id, expand)), `${t.name} ${id} ${expand}`).toEqual([
          text,
        ]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it("write timestamps with Z, numerics as strings and arrays as arrays in the children", async () => {
    const { service, db } = ctx;
    const language = table(service, "language");
    const query = listQuery({ sort: [{ column: "language_id", descending: false }], expand: ["films"] });
    const [english] = (await rowTexts(db.executor, compileList(service, language, query).rows)).map(
      (t) => JSON.parse(t) as { films: { items: Record<string, unknown>[]; has_more: boolean } },
    );
    const film = english!.films.items[0]!;
    expect(film.last_update).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(film.rental_rate).toMatch(/^\d+\.\d\d$/);
    expect(Array.isArray(film.special_features)).toBe(true);
    expect(english!.films.items).toHaveLength(10);
    expect(english!.films.has_more).toBe(true);
  });
});
