/**
 * Create and update semantics over HTTP (spec: Generated operations rules 5
 * and 6, Column capabilities; docs/decisions/0304-write-bodies.md): which
 * fields each body takes, what a create may omit, that an update writes
 * exactly the fields it carried, null only where the column is nullable,
 * and the empty change set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSource, emitHono } from "../../compiler/index.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, databaseWith, mounted, type Client } from "../hooks/support.js";
import { GADGETS } from "./schema.js";

let db: TestDatabase;
let client: Client;

// The key is defaulted (identity), so a create may still give it.
const CREATE_FIELDS = ["id", "sku", "name", "note", "mood", "weight", "made_on", "tags", "serial"];
const UPDATE_FIELDS = ["sku", "name", "note", "mood", "weight", "made_on", "tags"];

beforeAll(async () => {
  const { service, ddl } = compileText(GADGETS, "gadgets.resource");
  db = await databaseWith("writes_bodies", ddl);
  client = mounted(service, { db: db.executor });
});
afterAll(async () => {
  await db?.drop();
});

let n = 0;
/** Creates a gadget with a fresh sku and returns the stored row. */
async function create(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  n += 1;
  const r = await client.request("POST", "/gadgets", { sku: `g-${n}`, name: `Gadget ${n}`, serial: `S${n}`, ...extra });
  expect(r.status, r.text).toBe(201);
  return r.body as Record<string, unknown>;
}

describe("create", () => {
  it("defaulted and nullable columns are optional; the database supplies defaults; the stored row comes back", async () => {
    const r = await client.request("POST", "/gadgets", { sku: "min", name: "Minimal", serial: "S0" });
    expect(r.status).toBe(201);
    expect(r.headers.get("location")).toBe(`/gadgets/${r.body.id}`);
    expect(r.body).toEqual({
      id: expect.any(Number),
      sku: "min",
      name: "Minimal",
      note: null,
      mood: "calm",
      weight: null,
      made_on: null,
      tags: [],
      serial: "S0",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      label: "Minimal-min",
    });
  });

  it("refuses read-only, computed, hidden and unknown fields at once, listing the writable ones", async () => {
    const r = await client.request("POST", "/gadgets", {
      sku: "x",
      name: "X",
      serial: "S",
      created_at: "2020-01-01T00:00:00Z",
      label: "L",
      secret: "mine",
      colour: "red",
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      {
        location: "body.created_at",
        detail: "created_at is read-only; only the server sets it",
        allowed: CREATE_FIELDS,
      },
      {
        location: "body.label",
        detail: "label is computed from other columns and cannot be written",
        allowed: CREATE_FIELDS,
      },
      { location: "body.secret", detail: "unknown field secret", allowed: CREATE_FIELDS },
      { location: "body.colour", detail: "unknown field colour", allowed: CREATE_FIELDS },
    ]);
    expect(
      (await db.executor.query({ text: `SELECT count(*)::text AS n FROM gadgets WHERE sku = 'x'`, values: [] })).rows,
    ).toEqual([{ n: "0" }]);
  });

  it("a column neither nullable nor defaulted is required; each missing one is named", async () => {
    const r = await client.request("POST", "/gadgets", { note: "only a note" });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { location: string }) => e.location)).toEqual([
      "body.sku",
      "body.name",
      "body.serial",
    ]);
  });

  it("null only for nullable columns; values decoded by type", async () => {
    const r = await client.request("POST", "/gadgets", {
      sku: "n1",
      name: null,
      serial: "S",
      note: null,
      mood: "asleep",
      weight: 2.5,
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { location: "body.name", detail: "invalid value for name: may not be null", value: "null" },
      expect.objectContaining({ location: "body.mood", allowed: ["calm", "busy"] }),
    ]);
    const ok = await create({ note: null, weight: "2.50", made_on: "2026-02-03", tags: ["a", "b"] });
    expect(ok).toMatchObject({ note: null, weight: "2.50", made_on: "2026-02-03T00:00:00Z", tags: ["a", "b"] });
  });

  it("a database rule broken by the row is 422, a unique value taken 409", async () => {
    const neg = await client.request("POST", "/gadgets", { sku: "neg", name: "Neg", serial: "S", weight: -1 });
    expect(neg.status).toBe(422);
    const dup = await client.request("POST", "/gadgets", { sku: "min", name: "Again", serial: "S" });
    expect(dup.status).toBe(409);
    expect(dup.body.errors).toEqual([{ location: "body.sku", detail: "this value is already taken" }]);
  });
});

describe("declared bounds (docs/decisions/1254-value-limits.md)", () => {
  it("refuses a number too large for numeric(6,2) naming the field and the limit; rounding decides, as in PostgreSQL", async () => {
    for (const weight of [10000, "10000", "9999.995", "1e4", -10000]) {
      const r = await client.request("POST", "/gadgets", {
        sku: `big-${String(weight)}`,
        name: "Big",
        serial: "B",
        weight,
      });
      expect(r.status, JSON.stringify(weight)).toBe(400);
      expect((r.body as { errors: unknown[] }).errors).toEqual([
        expect.objectContaining({
          location: "body.weight",
          detail:
            "invalid value for weight: expected at most 6 digits, 2 after the point (numeric(6,2): less than 10^4 in absolute value)",
        }),
      ]);
    }
    for (const weight of [9999.99, "9999.994", "0.001", "0"]) {
      const r = await client.request("POST", "/gadgets", {
        sku: `ok-${String(weight)}`,
        name: "Fits",
        serial: "F",
        weight,
      });
      expect(r.status, `${JSON.stringify(weight)}: ${r.text}`).toBe(201);
    }
  });
});

describe("update", () => {
  it("writes exactly the fields the body carried", async () => {
    const row = await create({ note: "before", weight: "1.00", tags: ["t"] });
    const r = await client.request("PATCH", `/gadgets/${row.id}`, { note: "after" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...row, note: "after" });
  });

  it("immutable, read-only, computed and key fields are refused, listing the updatable ones", async () => {
    const row = await create();
    const r = await client.request("PATCH", `/gadgets/${row.id}`, {
      serial: "S-new",
      created_at: "2020-01-01T00:00:00Z",
      label: "L",
      id: 1,
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      {
        location: "body.serial",
        detail: "serial is immutable; it cannot change after creation",
        allowed: UPDATE_FIELDS,
      },
      {
        location: "body.created_at",
        detail: "created_at is read-only; only the server sets it",
        allowed: UPDATE_FIELDS,
      },
      {
        location: "body.label",
        detail: "label is computed from other columns and cannot be written",
        allowed: UPDATE_FIELDS,
      },
      { location: "body.id", detail: "id is immutable; it cannot change after creation", allowed: UPDATE_FIELDS },
    ]);
    expect((await client.get(`/gadgets/${row.id}`)).body).toEqual(row);
  });

  it("null sets a nullable column back to null and is refused on the others", async () => {
    const row = await create({ note: "n", weight: "3.00" });
    const ok = await client.request("PATCH", `/gadgets/${row.id}`, { note: null, weight: null });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ...row, note: null, weight: null });
    const refused = await client.request("PATCH", `/gadgets/${row.id}`, { name: null });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({
      location: "body.name",
      detail: "invalid value for name: may not be null",
    });
  });

  it("an empty change set is a 400 at body listing the updatable fields", async () => {
    const row = await create();
    const r = await client.request("PATCH", `/gadgets/${row.id}`, {});
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      status: 400,
      errors: [
        { location: "body", detail: "empty change set: the body carries no field to update", allowed: UPDATE_FIELDS },
      ],
    });
  });

  it("the generated update type leaves out immutable, read-only, computed and hidden columns", async () => {
    const r = compileSource(GADGETS, "gadgets.resource");
    if (!r.ok) throw new Error("gadgets.resource does not compile");
    const types = (await emitHono(r.schema)).find((f) => f.path.endsWith("types.ts"))!.contents;
    const update = /export interface GadgetsUpdate \{([^}]*)\}/.exec(types)![1];
    const fields = [...update.matchAll(/^\s+(\w+)\?:/gm)].map((m) => m[1]);
    expect(fields).toEqual(UPDATE_FIELDS);
    const createType = /export interface GadgetsCreate \{([^}]*)\}/.exec(types)![1];
    expect([...createType.matchAll(/^\s+(\w+)\??:/gm)].map((m) => m[1])).toEqual(CREATE_FIELDS);
  });
});
