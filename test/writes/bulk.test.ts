/**
 * Bulk create (docs/decisions/1330-bulk-create.md): `POST /<resource>` with a
 * JSON array creates every row in one transaction or none, answers the
 * stored rows in request order, names the element of every problem
 * (`body[3].sku`), runs the create hooks per row and AfterCommit per row
 * after the commit, and refuses more rows than `max_batch`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { CommitEvent } from "../../runtime/hooks.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, databaseWith, mounted, type Client } from "../hooks/support.js";
import { GADGETS } from "./schema.js";

const SMALL = `
table notes {
  id   bigint @primary_key @default(identity)
  body text
  resource "/notes" { ops = [create, list], max_batch = 3 }
}
`;

let db: TestDatabase;
let service: ServiceDescriptor;
let client: Client;
const committed: CommitEvent[] = [];

async function count(table: string): Promise<number> {
  return Number((await db.executor.query({ text: `SELECT count(*)::text AS n FROM ${table}`, values: [] })).rows[0]!.n);
}

beforeAll(async () => {
  const c = compileText(GADGETS + SMALL, "bulk.resource");
  service = c.service;
  db = await databaseWith("bulk", c.ddl);
  client = mounted(service, {
    db: db.executor,
    hooks: {
      beforeCreate: { gadgets: (_c, row) => ({ ...row, note: row.note ?? "stamped" }) },
      validateCreate: {
        gadgets: (_c, row) => (row.name === "forbidden" ? [{ location: "body.name", detail: "not this name" }] : []),
      },
      afterCommit: { gadgets: (_c, e) => void committed.push(e) },
    },
  });
});
afterAll(async () => {
  await db?.drop();
});

describe("POST with a JSON array", () => {
  it("creates 1,000 rows in one request and answers them in request order, each built by the hooks", async () => {
    committed.length = 0;
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      sku: `bulk-${i}`,
      name: `row ${i}`,
      serial: `B${i}`,
      ...(i % 2 === 0 ? { weight: "1.50" } : {}),
    }));
    const r = await client.request("POST", "/gadgets", rows);
    expect(r.status).toBe(201);
    const stored = r.body as { id: number; name: string; note: string; weight: string | null; mood: string }[];
    expect(stored.map((s) => s.name)).toEqual(rows.map((x) => x.name));
    expect(stored[0]).toMatchObject({ note: "stamped", weight: "1.50", mood: "calm" });
    expect(stored[1]).toMatchObject({ weight: null });
    // Hidden columns stay hidden in every element.
    expect(stored.some((s) => "secret" in s)).toBe(false);
    expect(new Set(stored.map((s) => s.id)).size).toBe(1000);
    expect(await count("gadgets")).toBeGreaterThanOrEqual(1000);
    expect(committed.map((e) => e.key)).toEqual(stored.map((s) => s.id));
  });

  it("binds each value in its cell when requests of one size differ in which cells are left to their default (decision 1355)", async () => {
    const shapes = [
      [true, false, true],
      [false, true, true],
      [true, false, true],
      [true, true, false],
    ];
    for (const [n, shape] of shapes.entries()) {
      const rows = shape.map((weighed, i) => ({
        sku: `shape-${n}-${i}`,
        name: `shape ${n} row ${i}`,
        serial: `S${n}-${i}`,
        ...(weighed ? { weight: `${n}.${i}0` } : {}),
      }));
      const r = await client.request("POST", "/gadgets", rows);
      expect(r.status).toBe(201);
      const stored = r.body as { sku: string; name: string; serial: string; weight: string | null }[];
      expect(stored.map((s) => [s.sku, s.name, s.weight])).toEqual(
        rows.map((x) => [x.sku, x.name, "weight" in x ? x.weight : null]),
      );
    }
  });

  it("reports every element's problems at once, located in the element, and stores nothing", async () => {
    const before = await count("gadgets");
    const r = await client.request("POST", "/gadgets", [
      { sku: "ok-1", name: "fine", serial: "X1" },
      { name: "no sku", serial: "X2", colour: "red" },
      { sku: "ok-3", name: 7, serial: "X3" },
    ]);
    expect(r.status).toBe(400);
    const locations = (r.body as { errors: { location: string }[] }).errors.map((e) => e.location).sort();
    expect(locations).toEqual(["body[1].colour", "body[1].sku", "body[2].name"]);
    expect(await count("gadgets")).toBe(before);
  });

  it("answers a ValidateCreate refusal as 422 naming the element, and stores nothing", async () => {
    const before = await count("gadgets");
    const r = await client.request("POST", "/gadgets", [
      { sku: "v-1", name: "fine", serial: "V1" },
      { sku: "v-2", name: "forbidden", serial: "V2" },
    ]);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ type: "/problems/invalid-row", errors: [{ location: "body[1].name" }] });
    expect(await count("gadgets")).toBe(before);
  });

  it("rolls every row back when the database refuses one, naming the element that holds the taken value", async () => {
    await client.request("POST", "/gadgets", { sku: "taken", name: "first", serial: "T0" });
    const before = await count("gadgets");
    const r = await client.request("POST", "/gadgets", [
      { sku: "t-1", name: "a", serial: "T1" },
      { sku: "t-2", name: "b", serial: "T2" },
      { sku: "taken", name: "c", serial: "T3" },
    ]);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ type: "/problems/conflict", errors: [{ location: "body[2].sku" }] });
    expect(await count("gadgets")).toBe(before);
  });

  it("refuses an empty array and more rows than max_batch, naming the ceiling", async () => {
    const empty = await client.request("POST", "/notes", []);
    expect(empty.status).toBe(400);
    const four = await client.request("POST", "/notes", [{ body: "a" }, { body: "b" }, { body: "c" }, { body: "d" }]);
    expect(four.status).toBe(400);
    expect(four.body).toMatchObject({ errors: [{ location: "body", detail: expect.stringContaining("at most 3") }] });
    const three = await client.request("POST", "/notes", [{ body: "a" }, { body: "b" }, { body: "c" }]);
    expect(three.status).toBe(201);
    expect((three.body as { body: string }[]).map((n) => n.body)).toEqual(["a", "b", "c"]);
  });
});
