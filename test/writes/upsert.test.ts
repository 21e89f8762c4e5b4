/**
 * Upsert (docs/decisions/1332-upsert.md): `POST /<resource>?on_conflict=…`
 * with `Prefer: resolution=merge-duplicates` overwrites the columns an
 * update may write on a row that conflicts on the key, and with
 * `resolution=ignore-duplicates` keeps it; one object or an array, in one
 * transaction, with the create hooks, within the caller's scope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { CommitEvent } from "../../runtime/hooks.js";
import { cmp } from "../../runtime/predicate.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, databaseWith, mounted, type Client } from "../hooks/support.js";
import { GADGETS } from "./schema.js";

let db: TestDatabase;
let service: ServiceDescriptor;
let client: Client;
const committed: CommitEvent[] = [];
const MERGE = { prefer: "resolution=merge-duplicates" };
const IGNORE = { prefer: "resolution=ignore-duplicates" };

async function stored(sku: string): Promise<Record<string, string | null> | undefined> {
  const r = await db.executor.query({
    text: "SELECT name, note, serial, mood::text AS mood FROM gadgets WHERE sku = $1",
    values: [sku],
  });
  return r.rows[0];
}

beforeAll(async () => {
  const c = compileText(GADGETS, "upsert.resource");
  service = c.service;
  db = await databaseWith("upsert", c.ddl);
  client = mounted(service, {
    db: db.executor,
    // Busy gadgets are out of every request's scope.
    hooks: {
      beforeQuery: { gadgets: () => cmp("mood", "eq", "calm") },
      afterCommit: { gadgets: (_c, e) => void committed.push(e) },
    },
  });
});
afterAll(async () => {
  await db?.drop();
});

describe("merge-duplicates", () => {
  it("inserts a new row (201), then overwrites only the columns an update may write (200)", async () => {
    committed.length = 0;
    const first = await client.request(
      "POST",
      "/gadgets?on_conflict=sku",
      { sku: "m-1", name: "one", serial: "S1" },
      MERGE,
    );
    expect(first.status).toBe(201);
    expect(first.headers.get("preference-applied")).toBe("resolution=merge-duplicates");
    expect(first.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await client.request(
      "POST",
      "/gadgets?on_conflict=sku",
      { sku: "m-1", name: "uno", note: "merged", serial: "S2" },
      MERGE,
    );
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: (first.body as { id: number }).id, name: "uno", note: "merged" });
    // serial is immutable: an update may not write it, so the merge keeps the stored value.
    expect(await stored("m-1")).toMatchObject({ name: "uno", note: "merged", serial: "S1" });
    expect(committed.map((e) => e.operation)).toEqual(["create", "update"]);
  });

  it("takes an array: new and existing rows in one transaction, answered in request order", async () => {
    await client.request("POST", "/gadgets", { sku: "a-2", name: "two", serial: "A2" });
    const r = await client.request(
      "POST",
      "/gadgets?on_conflict=sku",
      [
        { sku: "a-1", name: "first", serial: "A1" },
        { sku: "a-2", name: "second", serial: "A2" },
        { sku: "a-3", name: "third", serial: "A3" },
      ],
      MERGE,
    );
    expect(r.status).toBe(200);
    expect((r.body as { sku: string; name: string }[]).map((g) => [g.sku, g.name])).toEqual([
      ["a-1", "first"],
      ["a-2", "second"],
      ["a-3", "third"],
    ]);
  });

  it("refuses to merge into a row out of the caller's scope: 409, and nothing of the request is written", async () => {
    await client.request("POST", "/gadgets", { sku: "hidden", name: "secret plans", serial: "H1" });
    await db.executor.query({ text: "UPDATE gadgets SET mood = 'busy' WHERE sku = 'hidden'", values: [] });
    const r = await client.request(
      "POST",
      "/gadgets?on_conflict=sku",
      [
        { sku: "s-1", name: "innocent", serial: "I1" },
        { sku: "hidden", name: "overwritten", serial: "H2" },
      ],
      MERGE,
    );
    expect(r.status).toBe(409);
    expect(await stored("hidden")).toMatchObject({ name: "secret plans" });
    expect(await stored("s-1")).toBeUndefined();
  });

  it("refuses two rows with the same key in one request, naming the second", async () => {
    const r = await client.request(
      "POST",
      "/gadgets?on_conflict=sku",
      [
        { sku: "d-1", name: "a", serial: "D1" },
        { sku: "d-1", name: "b", serial: "D2" },
      ],
      MERGE,
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errors: [{ location: "body[1].sku" }] });
  });
});

describe("ignore-duplicates", () => {
  it("keeps a conflicting row: 204 for one object, only the inserted rows for an array", async () => {
    await client.request("POST", "/gadgets", { sku: "i-1", name: "kept", serial: "K1" });
    const one = await client.request(
      "POST",
      "/gadgets?on_conflict=sku",
      { sku: "i-1", name: "lost", serial: "K2" },
      IGNORE,
    );
    expect(one.status).toBe(204);
    expect(one.headers.get("preference-applied")).toBe("resolution=ignore-duplicates");
    expect(await stored("i-1")).toMatchObject({ name: "kept" });
    const many = await client.request(
      "POST",
      "/gadgets?on_conflict=sku",
      [
        { sku: "i-1", name: "lost again", serial: "K3" },
        { sku: "i-2", name: "new", serial: "K4" },
      ],
      IGNORE,
    );
    expect(many.status).toBe(200);
    expect((many.body as { sku: string }[]).map((g) => g.sku)).toEqual(["i-2"]);
  });

  it("defaults the conflict target to the primary key", async () => {
    const made = await client.request("POST", "/gadgets", { sku: "pk-1", name: "pk", serial: "P1" });
    const id = (made.body as { id: number }).id;
    // No on_conflict: the row with this id conflicts, and is kept.
    const r = await client.request("POST", "/gadgets", { id, sku: "pk-2", name: "other", serial: "P2" }, IGNORE);
    expect(r.status).toBe(204);
    expect(await stored("pk-1")).toMatchObject({ name: "pk" });
    expect(await stored("pk-2")).toBeUndefined();
  });
});

describe("refusals", () => {
  it("names the keys on_conflict may take, and asks for a resolution", async () => {
    const wrong = await client.request(
      "POST",
      "/gadgets?on_conflict=name",
      { sku: "x", name: "x", serial: "X" },
      MERGE,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ errors: [{ location: "query.on_conflict", allowed: ["id", "sku"] }] });
    const bare = await client.request("POST", "/gadgets?on_conflict=sku", { sku: "x", name: "x", serial: "X" });
    expect(bare.status).toBe(400);
    expect(bare.body).toMatchObject({ errors: [{ location: "header.prefer" }] });
    const other = await client.request("POST", "/gadgets?sort=name", { sku: "x", name: "x", serial: "X" });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ errors: [{ location: "query.sort", allowed: ["on_conflict"] }] });
  });
});
