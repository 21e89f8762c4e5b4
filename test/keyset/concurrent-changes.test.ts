/**
 * A walk by cursor while rows are inserted and deleted between pages
 * (spec: Pagination). Keyset pagination promises, for rows
 * that do not change their sort key:
 * - every row present during the whole walk is returned exactly once;
 * - no row is returned twice, and the order of the walk is the ordering;
 * - a row inserted after the current position is returned, one inserted
 *   before it is not (the walk never goes back);
 * - a row deleted before the walk reached it is not returned.
 * Offset paging keeps none of these, which is why cursors exist.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileFile, serviceClient, type TestClient } from "../support/service.js";
import { walk } from "./walk.js";

const RESOURCE = fileURLToPath(new URL("./keyset.resource", import.meta.url));

let db: TestDatabase;
let client: TestClient;

beforeAll(async () => {
  const { service, ddl } = await compileFile(RESOURCE);
  db = await createTestDatabase("keyset_changes");
  await db.executor.script(ddl);
  client = serviceClient(service, db.executor);
});

afterAll(async () => {
  await db?.drop();
});

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Inserts one note with random, often tied, often NULL sort values. */
async function insertNote(id: number, rnd: () => number): Promise<void> {
  const pick = <T>(values: T[]): T => values[Math.floor(rnd() * values.length)];
  await db.executor.query({
    text: "INSERT INTO note (id, rank, label, at) VALUES ($1::int, $2::int, $3, $4::timestamptz)",
    values: [
      String(id),
      pick([null, "1", "2", "3", "4", "5"]),
      pick([null, "a", "b", "c", "d"]),
      pick([null, "2020-01-01T00:00:00Z", "2020-01-01T00:00:00.000001Z", "2021-07-01T12:00:00+02:00"]),
    ],
  });
}

/** `ORDER BY` of the orderings below with their declared placements and the id tiebreak. */
const ORDER: Record<string, string> = {
  rank: `rank ASC NULLS LAST, id ASC`,
  "-rank": `rank DESC NULLS LAST, id DESC`,
  label: `label ASC NULLS FIRST, id ASC`,
  "-at,label": `at DESC NULLS LAST, label ASC NULLS FIRST, id ASC`,
};

async function orderedIds(sort: string, where = "TRUE"): Promise<number[]> {
  const r = await db.executor.query({
    text: `SELECT id::text AS k FROM note WHERE ${where} ORDER BY ${ORDER[sort]}`,
    values: [],
  });
  return r.rows.map((x) => Number(x.k));
}

describe("walking while rows are inserted and deleted between pages", () => {
  it.each(Object.keys(ORDER).map((sort, i) => [sort, 1000 + i] as const))("sort=%s (seed %i)", async (sort, seed) => {
    const rnd = random(seed);
    await db.executor.script("TRUNCATE note");
    for (let id = 1; id <= 240; id++) await insertNote(id, rnd);
    const initial = await orderedIds(sort);

    const returned = new Set<number>();
    const pageLasts = new Set<number>();
    const deleted = new Set<number>();
    const deletedUnseen = new Set<number>();
    /** id of an inserted row → id of the last row of the page after which it was inserted. */
    const insertedAfter = new Map<number, number>();
    let nextId = 10_000;

    const w = await walk<{ id: number }>(client, `/notes?sort=${sort}&per_page=17`, async (page) => {
      for (const item of page.items) returned.add(item.id);
      const last = page.items[page.items.length - 1].id;
      pageLasts.add(last);
      // Delete five rows anywhere (never a page's last row: it anchors the checks below).
      const present = await orderedIds(sort);
      const candidates = present.filter((id) => !pageLasts.has(id));
      for (let i = 0; i < 5 && candidates.length > 0; i++) {
        const id = candidates.splice(Math.floor(rnd() * candidates.length), 1)[0];
        await db.executor.query({ text: "DELETE FROM note WHERE id = $1::int", values: [String(id)] });
        deleted.add(id);
        if (!returned.has(id)) deletedUnseen.add(id);
      }
      for (let i = 0; i < 6; i++) {
        const id = nextId++;
        await insertNote(id, rnd);
        insertedAfter.set(id, last);
      }
    });
    const ids = w.items.map((i) => i.id);
    expect(w.pages.length).toBeGreaterThan(10);

    // No duplicates, and every row present during the whole walk is there.
    expect(new Set(ids).size).toBe(ids.length);
    const survivors = initial.filter((id) => !deleted.has(id));
    expect(survivors.filter((id) => !ids.includes(id))).toEqual([]);
    // A row deleted before the walk reached it never appears.
    expect(ids.filter((id) => deletedUnseen.has(id))).toEqual([]);
    // The walk's order is the ordering: the rows still present come in SQL order.
    const now = await orderedIds(sort);
    const present = new Set(now);
    expect(ids.filter((id) => present.has(id))).toEqual(now.filter((id) => ids.includes(id)));
    // An inserted row is returned exactly when it sorts after the position the walk stood at.
    const position = new Map(now.map((id, i) => [id, i]));
    let ahead = 0;
    for (const [id, anchor] of insertedAfter) {
      if (!present.has(id)) continue;
      const after = (position.get(id) as number) > (position.get(anchor) as number);
      if (after) ahead++;
      expect(ids.includes(id), `row ${id} inserted after row ${anchor}`).toBe(after);
    }
    expect(ahead).toBeGreaterThan(0);
  });

  it("offset paging under the same changes skips or repeats rows (why cursors exist)", async () => {
    const rnd = random(7);
    await db.executor.script("TRUNCATE note");
    for (let id = 1; id <= 60; id++) await insertNote(id, rnd);
    const initial = await orderedIds("rank");
    const seen: number[] = [];
    const deleted = new Set<number>();
    // Pages 1 to 8 of 5 rows: offset 35, within the fixture's max_offset of 40.
    for (let page = 1; page <= 8; page++) {
      const r = await client.get(`/notes?sort=rank&per_page=5&page=${page}`);
      expect(r.status, r.text).toBe(200);
      seen.push(...r.body.items.map((i: { id: number }) => i.id));
      // Remove the first row of the ordering: every later page shifts by one.
      const first = (await orderedIds("rank"))[0];
      await db.executor.query({ text: "DELETE FROM note WHERE id = $1::int", values: [String(first)] });
      deleted.add(first);
    }
    const reachedBefore = initial.slice(0, seen.length + deleted.size);
    const skipped = reachedBefore.filter((id) => !deleted.has(id) && !seen.includes(id));
    expect(skipped.length).toBeGreaterThan(0);
  });
});
