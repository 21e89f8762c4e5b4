/**
 * Expansion edge cases on a small dedicated schema (test/expansion/league.resource;
 * spec: Expansion, Expanded relation shapes, Generated operations rule 4):
 * a hidden column of the target never appears; an inverse ordered by a
 * nulls-last date keeps that placement with the key tiebreak, caps at 50 by
 * default and continues through the child's list; a declared relation that
 * is not expandable is refused alike on list and read; on a resource with
 * no expandable relation `expand` is an unknown parameter.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileFile, serviceClient, type TestClient } from "../support/service.js";

type Row = Record<string, unknown>;
type Inverse = { items: Row[]; has_more: boolean };

const ROWS = `
INSERT INTO team (id, name, secret, founded) VALUES
  (1, 'Ajax', 'ajax-secret', '1900-03-18'), (2, 'Bohemians', 'b-secret', NULL), (3, 'Celtic', NULL, '1887-11-06');
-- Team 1: 60 players, joined dates with ties and NULLs; team 2: three; team 3: none.
INSERT INTO player (id, team_id, coach_id, joined)
SELECT g, 1, 2, CASE WHEN g % 7 = 0 THEN NULL ELSE date '2020-01-01' + (g % 9) END FROM generate_series(1, 60) AS g;
INSERT INTO player (id, team_id, coach_id, joined) VALUES (61, 2, 1, '2021-05-05'), (62, 2, NULL, NULL), (63, 2, 1, '2019-01-01'),
  (64, NULL, 1, '2018-08-08');
INSERT INTO tag (id, player_id, label) VALUES (1, 1, 'captain'), (2, 61, 'rookie');
`;

let db: TestDatabase;
let client: TestClient;

beforeAll(async () => {
  const { service, ddl } = await compileFile(fileURLToPath(new URL("./league.resource", import.meta.url)));
  db = await createTestDatabase("expansion_league");
  await db.executor.script(ddl + ROWS);
  client = serviceClient(service, db.executor);
});

afterAll(async () => {
  await db?.drop();
});

async function get<T = Row>(path: string): Promise<T> {
  const r = await client.get<T>(path);
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return r.body;
}

async function playerIds(where: string): Promise<number[]> {
  const r = await db.executor.query({
    text: `SELECT id::text AS k FROM player WHERE ${where} ORDER BY joined DESC NULLS LAST, id DESC`,
    values: [],
  });
  return r.rows.map((x) => Number(x.k));
}

describe("forward", () => {
  it("the target row without its hidden column; the reference column kept; NULL reference gives null", async () => {
    const body = await get<{ items: Row[] }>("/players?expand=team&sort=-id&per_page=5");
    expect(body.items.map((p) => p.team_id)).toEqual([null, 2, 2, 2, 1]);
    expect(body.items[4].team).toEqual({ id: 1, name: "Ajax", founded: "1900-03-18T00:00:00Z" });
    expect(body.items[4].team).toEqual(await get("/teams/1"));
    expect(body.items[0].team).toBeNull();
    expect(JSON.stringify(body)).not.toContain("secret");
  });
});

describe("inverse", () => {
  it("ordered by the declared -joined with nulls last and the key descending, capped at 50", async () => {
    const teams = await get<{ items: (Row & { players: Inverse })[] }>("/teams?expand=players");
    const [ajax, bohemians, celtic] = teams.items;
    expect(ajax.players.items.map((p) => p.id)).toEqual((await playerIds("team_id = 1")).slice(0, 50));
    expect(ajax.players.has_more).toBe(true);
    expect(bohemians.players).toEqual({
      items: [
        { id: 61, team_id: 2, coach_id: 1, joined: "2021-05-05T00:00:00Z" },
        { id: 63, team_id: 2, coach_id: 1, joined: "2019-01-01T00:00:00Z" },
        { id: 62, team_id: 2, coach_id: null, joined: null },
      ],
      has_more: false,
    });
    expect(celtic.players).toEqual({ items: [], has_more: false });
    // The parent's hidden column is not in the parent either.
    expect(Object.keys(ajax)).toEqual(["id", "name", "founded", "players"]);
  });

  it("the rest continues through GET /players?team_id=eq.1&sort=-joined", async () => {
    const ajax = await get<Row & { players: Inverse }>("/teams/1?expand=players");
    const p1 = await get<{ items: Row[]; has_more: boolean }>("/players?team_id=eq.1&sort=-joined&per_page=50");
    expect(p1.items).toEqual(ajax.players.items);
    const p2 = await get<{ items: Row[]; has_more: boolean }>("/players?team_id=eq.1&sort=-joined&per_page=50&page=2");
    expect(p2.items.map((p) => p.id)).toEqual((await playerIds("team_id = 1")).slice(50));
    expect(p2.has_more).toBe(false);
  });
});

describe("refusals", () => {
  it("a declared relation that is not expandable: 400 listing the expandable ones, identical on list and read", async () => {
    const list = await client.get("/players?expand=coach");
    const read = await client.get("/players/1?expand=coach");
    expect(list.status).toBe(400);
    expect(read.body).toEqual(list.body);
    expect(list.body.errors).toEqual([
      { location: "query.expand", detail: "coach is not an expandable relation", value: "coach", allowed: ["team"] },
    ]);
  });

  it("on a resource with no expandable relation, expand is an unknown parameter", async () => {
    const list = await client.get("/tags?expand=player");
    expect(list.status).toBe(400);
    expect(list.body.errors).toEqual([
      {
        location: "query.expand",
        detail: "unknown parameter expand: this resource has no expandable relation",
        allowed: ["player_id"],
      },
    ]);
    const read = await client.get("/tags/1?expand=player");
    expect(read.status).toBe(400);
    expect(read.body.errors).toEqual([
      {
        location: "query.expand",
        detail: "unknown parameter expand: this resource has no expandable relation",
        allowed: ["select"],
      },
    ]);
    // Without expand both answer.
    expect((await client.get("/tags/1")).status).toBe(200);
    expect((await client.get("/tags")).status).toBe(200);
  });
});
