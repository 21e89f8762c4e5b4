/**
 * Filtered update and delete (docs/decisions/1333-filtered-writes.md):
 * `PATCH /<resource>?<filters>` and `DELETE /<resource>?<filters>` on a
 * resource with `filtered_writes = true` change every row the list grammar's
 * filters match within the caller's scope, at least one filter required;
 * `Prefer: max-affected=N` refuses, writing nothing, when more would change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { CommitEvent } from "../../runtime/hooks.js";
import { cmp } from "../../runtime/predicate.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, databaseWith, mounted, type Client } from "../hooks/support.js";

const SCHEMA = `
enum state { open closed }
table tickets {
  id     bigint @primary_key @default(identity)
  team   text   @filterable
  state  state  @default(open) @filterable
  title  text   @searchable
  points int    @filterable
  resource "/tickets" { ops = [crud, list], filtered_writes = true }
}
table notes {
  id   bigint @primary_key @default(identity)
  body text   @filterable
  resource "/notes" { ops = [crud, list] }
}
`;

let db: TestDatabase;
let service: ServiceDescriptor;
let client: Client;
const committed: CommitEvent[] = [];

async function states(): Promise<Record<string, string>> {
  const r = await db.executor.query({
    text: "SELECT title, state::text AS state FROM tickets ORDER BY id",
    values: [],
  });
  return Object.fromEntries(r.rows.map((x) => [x.title!, x.state!]));
}

beforeAll(async () => {
  const c = compileText(SCHEMA, "filtered.resource");
  service = c.service;
  db = await databaseWith(
    "filtered",
    c.ddl,
    `INSERT INTO tickets (team, title, points) VALUES
       ('red', 'r1', 1), ('red', 'r2', 2), ('red', 'r3', 3), ('blue', 'b1', 1), ('blue', 'b2', 5), ('green', 'g1', 8);
     INSERT INTO notes (body) VALUES ('kept');`,
  );
  // The green team is out of every request's scope.
  client = mounted(service, {
    db: db.executor,
    hooks: {
      beforeQuery: { tickets: () => cmp("team", "ne", "green") },
      afterCommit: { tickets: (_c, e) => void committed.push(e) },
    },
  });
});
afterAll(async () => {
  await db?.drop();
});

describe("PATCH with filters", () => {
  it("writes every matching row in scope and answers them", async () => {
    committed.length = 0;
    const r = await client.request("PATCH", "/tickets?team=eq.red&points=gte.2", { state: "closed" });
    expect(r.status).toBe(200);
    expect((r.body as { title: string }[]).map((t) => t.title).sort()).toEqual(["r2", "r3"]);
    expect(await states()).toMatchObject({ r1: "open", r2: "closed", r3: "closed", b1: "open" });
    expect(committed.map((e) => e.operation)).toEqual(["update", "update"]);
    // Out of scope: green matches the filter but is not written.
    const green = await client.request("PATCH", "/tickets?points=gte.8", { state: "closed" });
    expect(green.body).toEqual([]);
    expect((await states()).g1).toBe("open");
  });

  it("takes groups and search, and refuses more rows than max-affected, writing nothing", async () => {
    const refused = await client.request(
      "PATCH",
      "/tickets?or=(team.eq.blue,points.eq.1)",
      { state: "closed" },
      { prefer: "max-affected=2" },
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: "/problems/max-affected", errors: [{ location: "header.prefer" }] });
    expect(await states()).toMatchObject({ r1: "open", b1: "open", b2: "open" });
    const bounded = await client.request(
      "PATCH",
      "/tickets?search=b",
      { state: "closed" },
      { prefer: "max-affected=2" },
    );
    expect(bounded.status).toBe(200);
    expect(bounded.headers.get("preference-applied")).toBe("max-affected=2");
    expect(await states()).toMatchObject({ b1: "closed", b2: "closed" });
  });

  it("needs at least one filter and takes filters only", async () => {
    const none = await client.request("PATCH", "/tickets", { state: "closed" });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ errors: [{ location: "query" }] });
    const sorted = await client.request("PATCH", "/tickets?team=eq.red&sort=title", { state: "closed" });
    expect(sorted.status).toBe(400);
    expect(sorted.body).toMatchObject({ errors: [{ location: "query.sort" }] });
    const unknown = await client.request("PATCH", "/tickets?colour=eq.red", { state: "closed" });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ errors: [{ location: "query.colour" }] });
  });
});

describe("DELETE with filters", () => {
  it("removes every matching row in scope and answers their keys", async () => {
    const r = await client.request("DELETE", "/tickets?team=eq.blue");
    expect(r.status).toBe(200);
    expect((r.body as { id: number }[]).length).toBe(2);
    expect(Object.keys(await states()).sort()).toEqual(["g1", "r1", "r2", "r3"]);
    const none = await client.request("DELETE", "/tickets");
    expect(none.status).toBe(400);
  });

  it("is not served where the resource does not opt in", async () => {
    expect((await client.request("DELETE", "/notes?body=eq.kept")).status).toBe(404);
    expect((await client.request("PATCH", "/notes?body=eq.kept", { body: "x" })).status).toBe(404);
  });
});
