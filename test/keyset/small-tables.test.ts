/**
 * Keyset pagination over HTTP on small dedicated tables (spec: Pagination): a
 * walk by cursor returns every row exactly once, in the order one ordered
 * SQL query gives, for every sortable column kind in both directions (with
 * duplicates, NULLs placed last, first and by default, NaN and infinities),
 * for composite keys, with a projection that omits the sort column, and
 * under a session whose time zone, DateStyle and bytea_output differ from
 * the defaults (spec: Pagination; decision 0500).
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import type { Executor } from "../../runtime/exec/executor.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileFile, serviceClient, type TestClient } from "../support/service.js";
import { walk } from "./walk.js";

const RESOURCE = fileURLToPath(new URL("./keyset.resource", import.meta.url));

/**
 * 120 notes with ties and NULLs in every column, plus the values the URL
 * codecs refuse (NaN, infinities) and dates and timestamps before 1 AD, whose
 * cursors carry the era (decision 1349).
 */
const ROWS = `
INSERT INTO note (id, rank, label, score, ratio, big, mood, day, at, local, clock, zoned, ok, tag, blob, code)
SELECT g,
  CASE WHEN g % 5 = 0 THEN NULL ELSE g % 7 END,
  CASE WHEN g % 4 = 0 THEN NULL ELSE 'l' || (g % 6) END,
  CASE WHEN g % 6 = 0 THEN NULL WHEN g % 23 = 0 THEN 'NaN' ELSE (g % 9) * 1.25 END,
  CASE WHEN g % 8 = 0 THEN NULL WHEN g % 19 = 0 THEN 'NaN' WHEN g % 29 = 0 THEN '-Infinity' ELSE (g % 5) / 3.0 END,
  CASE WHEN g % 9 = 0 THEN NULL ELSE 9007199254740993 * (g % 3 - 1) END,
  CASE WHEN g % 4 = 1 THEN NULL ELSE (ARRAY['happy', 'sad', 'meh'])[1 + g % 3]::mood END,
  CASE WHEN g % 3 = 0 THEN NULL WHEN g % 31 = 0 THEN 'infinity' WHEN g % 17 = 0 THEN date '0044-03-15 BC' + (g % 2)
       ELSE date '2020-02-27' + (g % 4) END,
  CASE WHEN g % 7 = 0 THEN NULL WHEN g % 37 = 0 THEN '-infinity'
       WHEN g % 17 = 0 THEN timestamptz '0044-03-15 10:00:00.5+00 BC' + (g % 2) * interval '1 microsecond'
       ELSE timestamptz '2020-01-01 00:00:00.000001+00' + (g % 3) * interval '1 microsecond' END,
  CASE WHEN g % 10 = 0 THEN NULL WHEN g % 17 = 0 THEN timestamp '0001-12-31 23:59:59.999999 BC' + (g % 2) * interval '1 hour'
       ELSE timestamp '2021-06-01 12:00' + (g % 4) * interval '0.5 second' END,
  CASE WHEN g % 11 = 0 THEN NULL ELSE time '10:00' + (g % 3) * interval '1 minute' END,
  CASE WHEN g % 12 = 0 THEN NULL ELSE ('10:00' || (ARRAY['+02', '-05:30', '+00'])[1 + g % 3])::timetz END,
  CASE WHEN g % 13 = 0 THEN NULL ELSE g % 2 = 0 END,
  CASE WHEN g % 14 = 0 THEN NULL ELSE ('00000000-0000-0000-0000-00000000000' || (g % 4))::uuid END,
  CASE WHEN g % 15 = 0 THEN NULL ELSE decode(lpad(to_hex(g % 5), 2, '0'), 'hex') END,
  CASE WHEN g % 16 = 0 THEN NULL ELSE 'c' || (g % 3) END
FROM generate_series(1, 120) AS g;
INSERT INTO pair (a, b, n)
SELECT g % 4, 'b' || (g % 9), CASE WHEN g % 3 = 0 THEN NULL ELSE g % 5 END FROM generate_series(1, 36) AS g;
`;

let db: TestDatabase;
let service: ServiceDescriptor;
let client: TestClient;
/** A second connection pool whose session settings differ from the defaults (pg only). */
let oddSession: Executor | undefined;

beforeAll(async () => {
  const compiled = await compileFile(RESOURCE);
  service = compiled.service;
  db = await createTestDatabase("keyset_small");
  await db.executor.script(compiled.ddl + ROWS);
  client = serviceClient(service, db.executor);
  if (db.kind === "pg" && db.url) {
    const u = new URL(db.url);
    u.searchParams.set("options", "-c TimeZone=Asia/Kolkata -c DateStyle=SQL,DMY -c bytea_output=escape");
    oddSession = createPgExecutor({ connectionString: u.toString(), max: 2 });
  }
});

afterAll(async () => {
  await oddSession?.close();
  await db?.drop();
});

/** Declared placements of the fixture, as `ORDER BY` writes them. */
const PLACEMENT: Record<string, string> = {
  rank: " NULLS LAST",
  label: " NULLS FIRST",
  ratio: " NULLS LAST",
  day: " NULLS LAST",
  at: " NULLS LAST",
  n: " NULLS LAST",
};

/** `ORDER BY` of a `?sort=` value on a table keyed by `key`, as the spec resolves it (tiebreak in the last term's direction). */
function orderBy(sort: string, key: string[]): string {
  const terms = sort.split(",").map((t) => ({ column: t.replace(/^-/, ""), desc: t.startsWith("-") }));
  const last = terms[terms.length - 1].desc;
  for (const k of key) if (!terms.some((t) => t.column === k)) terms.push({ column: k, desc: last });
  return terms.map((t) => `"${t.column}" ${t.desc ? "DESC" : "ASC"}${PLACEMENT[t.column] ?? ""}`).join(", ");
}

async function noteIds(sort: string): Promise<number[]> {
  const r = await db.executor.query({
    text: `SELECT id::text AS k FROM note ORDER BY ${orderBy(sort, ["id"])}`,
    values: [],
  });
  return r.rows.map((x) => Number(x.k));
}

const SORTABLE = [
  "rank",
  "label",
  "score",
  "ratio",
  "big",
  "mood",
  "day",
  "at",
  "local",
  "clock",
  "zoned",
  "ok",
  "tag",
  "blob",
  "code",
];

describe("walking /notes by cursor returns every row once, in SQL order", () => {
  it.each(SORTABLE.flatMap((c) => [c, `-${c}`]))("sort=%s", async (sort) => {
    const expected = await noteIds(sort);
    expect(expected).toHaveLength(120);
    const w = await walk<{ id: number }>(client, `/notes?sort=${sort}&per_page=7`);
    expect(w.items.map((i) => i.id)).toEqual(expected);
    expect(w.pages).toHaveLength(Math.ceil(120 / 7));
  });

  it("one row per page", async () => {
    const w = await walk<{ id: number }>(client, "/notes?sort=-at&per_page=1");
    expect(w.items.map((i) => i.id)).toEqual(await noteIds("-at"));
  });

  it("the default order (-rank, nulls last) and several mixed terms", async () => {
    expect((await walk<{ id: number }>(client, "/notes?per_page=9")).items.map((i) => i.id)).toEqual(
      await noteIds("-rank"),
    );
    for (const sort of ["mood,-day,label", "-ok,ratio,-code", "label,-blob,zoned"]) {
      const w = await walk<{ id: number }>(client, `/notes?sort=${sort}&per_page=11`);
      expect(
        w.items.map((i) => i.id),
        sort,
      ).toEqual(await noteIds(sort));
    }
  });

  it("a projection without the sort column still pages by it", async () => {
    const w = await walk<Record<string, unknown>>(client, "/notes?sort=at,-label&select=code&per_page=8");
    expect(w.items.map((i) => i.id)).toEqual(await noteIds("at,-label"));
    expect(Object.keys(w.items[0])).toEqual(["id", "code"]);
  });

  it("count=exact is the whole set on every page, wherever the cursor stands", async () => {
    const w = await walk(client, "/notes?sort=day&rank=notnull&count=exact&per_page=10");
    const n = await db.executor.query({
      text: "SELECT count(*)::text AS n FROM note WHERE rank IS NOT NULL",
      values: [],
    });
    expect(w.items).toHaveLength(Number(n.rows[0].n));
    expect(new Set(w.pages.map((p) => p.total))).toEqual(new Set([Number(n.rows[0].n)]));
  });

  it("filters may change between pages: the cursor only says where the next page starts", async () => {
    const first = await client.get("/notes?sort=rank&per_page=30");
    const narrowed = await client.get(`/notes?sort=rank&per_page=30&rank=eq.6&cursor=${first.body.next_cursor}`);
    expect(narrowed.status).toBe(200);
    const ids = first.body.items.map((i: { id: number }) => i.id);
    const rest = (await noteIds("rank")).slice(30);
    const sixes = await db.executor.query({ text: "SELECT id::text AS id FROM note WHERE rank = 6", values: [] });
    const six = new Set(sixes.rows.map((r) => Number(r.id)));
    expect(narrowed.body.items.map((i: { id: number }) => i.id)).toEqual(rest.filter((id) => six.has(id)));
    expect(ids.some((id: number) => six.has(id))).toBe(false);
  });

  it("key values in a cursor do not depend on the session (time zone, DateStyle, bytea_output)", async (t) => {
    if (!oddSession) return t.skip();
    const odd = serviceClient(service, oddSession);
    for (const sort of ["at", "-day", "local", "blob", "zoned", "-ratio"]) {
      const w = await walk<{ id: number }>(odd, `/notes?sort=${sort}&per_page=13`);
      expect(
        w.items.map((i) => i.id),
        sort,
      ).toEqual(await noteIds(sort));
      // A cursor issued under one session resumes under the other.
      const a = await odd.get(`/notes?sort=${sort}&per_page=13`);
      const b = await client.get(`/notes?sort=${sort}&per_page=13&cursor=${a.body.next_cursor}`);
      expect(b.body.items.map((i: { id: number }) => i.id)).toEqual((await noteIds(sort)).slice(13, 26));
    }
  });
});

describe("composite keys (/pairs, key a, b)", () => {
  async function pairKeys(sort: string): Promise<string[]> {
    const r = await db.executor.query({
      text: `SELECT a || '/' || b AS key FROM pair ORDER BY ${orderBy(sort, ["a", "b"])}`,
      values: [],
    });
    return r.rows.map((x) => x.key as string);
  }
  it.each(["a", "-a", "b", "-b", "n", "-n", "-n,b", "b,-a"])("sort=%s", async (sort) => {
    const w = await walk<{ a: number; b: string }>(client, `/pairs?sort=${sort}&per_page=4`);
    const expected = await pairKeys(sort);
    expect(new Set(expected).size).toBe(expected.length);
    expect(w.items.map((i) => `${i.a}/${i.b}`)).toEqual(expected);
  });
  it("the default order is the key", async () => {
    const w = await walk<{ a: number; b: string }>(client, "/pairs?per_page=5");
    expect(w.items.map((i) => `${i.a}/${i.b}`)).toEqual(await pairKeys("a,b"));
  });
});
