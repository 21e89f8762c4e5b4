/**
 * `Idempotency-Key` on POST (docs/decisions/1335-idempotency-keys.md), over
 * Pagila against PostgreSQL: a retry replays the first answer and writes
 * nothing; another request under the same key is a 422; a request while the
 * first runs is a 409; twenty concurrent creates with one key make one row;
 * keys are per caller, as the hooks' data names it (decision 1360); a
 * refusal stores nothing; actions and bulk creates are covered; AfterCommit
 * runs once, after the commit. The store's table is created on first use
 * here (the test database is the shipped dump).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupPagila, type PagilaContext } from "../pagila/setup.js";
import { createDevApp } from "../../cli/dev/app.js";
import { hooks } from "../../fixtures/pagila/hooks.js";
import type { CommitEvent } from "../../runtime/hooks.js";
import { sendTo, type Answer } from "../support/service.js";
import { IDEMPOTENCY_TABLE } from "../../runtime/idempotency-store.js";

let ctx: PagilaContext;
let post: (path: string, body: unknown, headers?: Record<string, string>) => Promise<Answer<any>>;
const events: CommitEvent[] = [];

beforeAll(async () => {
  ctx = await setupPagila("idempotency_keys");
  const { app, mounted } = createDevApp(ctx.service, {
    db: ctx.db.executor,
    hooks: { ...hooks, afterCommit: { actor: (_c, e) => void events.push(e) } },
  });
  expect(mounted.ok).toBe(true);
  post = (path, body, headers = {}) => sendTo(app, "POST", path, body, headers);
});
afterAll(() => ctx?.drop());

const count = async (last: string): Promise<number> =>
  Number(
    (
      await ctx.db.executor.query({
        text: "SELECT count(*)::text AS n FROM actor WHERE last_name = $1",
        values: [last],
      })
    ).rows[0]!.n,
  );

describe("Idempotency-Key", () => {
  it("replays the first answer, status, body, Location and ETag, and writes nothing again", async () => {
    const key = { "idempotency-key": '"create-once-1"' };
    const first = await post("/actors", { first_name: "ONCE", last_name: "KEYED" }, key);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await post("/actors", { first_name: "ONCE", last_name: "KEYED" }, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await count("KEYED")).toBe(1);
    // AfterCommit followed the one commit, not the replay.
    expect(events.filter((e) => e.row?.last_name === "KEYED")).toHaveLength(1);
    const stored = await ctx.db.executor.query({
      text: `SELECT status::text, key FROM ${IDEMPOTENCY_TABLE}`,
      values: [],
    });
    expect(stored.rows).toContainEqual({ status: "201", key: "create-once-1" });
  });

  it("refuses the same key with another request: 422, nothing written", async () => {
    const key = { "idempotency-key": "reuse-1" };
    expect((await post("/actors", { first_name: "A", last_name: "REUSED" }, key)).status).toBe(201);
    const other = await post("/actors", { first_name: "B", last_name: "REUSED" }, key);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      type: "/problems/idempotency-key-reused",
      errors: [{ location: "header.idempotency-key" }],
    });
    // The same body asking another thing (an upsert, by Prefer) is another request too.
    const upsert = await post(
      "/actors",
      { first_name: "A", last_name: "REUSED" },
      {
        ...key,
        prefer: "resolution=ignore-duplicates",
      },
    );
    expect(upsert.status).toBe(422);
    expect((await post("/films/1", {}, key)).status).toBe(404); // no POST route there: the key is not even read
    expect(await count("REUSED")).toBe(1);
  });

  it("keys belong to the caller the hooks' data names: another caller's same key is its own request", async () => {
    // The caller as this service knows it (docs/decisions/1360-idempotency-scope.md), whatever its credential.
    const { app } = createDevApp(ctx.service, {
      db: ctx.db.executor,
      hooks,
      hookData: (c) => ({ staff: c.req.header("x-staff") }),
    });
    const as = (staff: string, token: string) => ({
      "idempotency-key": "shared",
      "x-staff": staff,
      authorization: token,
    });
    const body = { first_name: "C", last_name: "SCOPED" };
    const a = await sendTo<any>(app, "POST", "/actors", body, as("1", "Bearer a"));
    const b = await sendTo<any>(app, "POST", "/actors", body, as("2", "Bearer a"));
    const again = await sendTo<any>(app, "POST", "/actors", body, as("2", "Bearer renewed"));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(b.text);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(a.body.actor_id).not.toBe(b.body.actor_id);
    expect(await count("SCOPED")).toBe(2);
  });

  it("stores no refusal: a corrected request under the same key is served", async () => {
    const key = { "idempotency-key": "refused-first" };
    const refused = await post("/actors", { first_name: "D" }, key);
    expect(refused.status).toBe(400);
    const fixed = await post("/actors", { first_name: "D", last_name: "FIXED" }, key);
    expect(fixed.status).toBe(201);
    expect(await count("FIXED")).toBe(1);
  });

  it("twenty concurrent creates with one key make one row; the others are 409 in flight or the replay", async () => {
    const key = { "idempotency-key": "concurrent-20" };
    const body = { first_name: "MANY", last_name: "CONCURRENT" };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post("/actors", body, key)));
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(","),
    ).toBe(true);
    const fresh = answers.filter((a) => a.status === 201 && a.headers.get("idempotent-replayed") === null);
    expect(fresh).toHaveLength(1);
    for (const a of answers.filter((a) => a.status === 409)) {
      expect(a.body.type).toBe("/problems/request-in-flight");
      expect(a.headers.get("retry-after")).toBe("1");
    }
    for (const a of answers.filter((a) => a.status === 201)) expect(a.text).toBe(fresh[0]!.text);
    expect(await count("CONCURRENT")).toBe(1);
  });

  it("covers bulk creates and actions: a retried return replays its 200 instead of answering 409", async () => {
    const rows = [
      { first_name: "B1", last_name: "BULKKEY" },
      { first_name: "B2", last_name: "BULKKEY" },
    ];
    const bulk = await post("/actors", rows, { "idempotency-key": "bulk-1" });
    const bulkAgain = await post("/actors", rows, { "idempotency-key": "bulk-1" });
    expect([bulk.status, bulkAgain.status]).toEqual([201, 201]);
    expect(bulkAgain.text).toBe(bulk.text);
    expect(await count("BULKKEY")).toBe(2);

    const open = await ctx.db.executor.query({
      text: "SELECT rental_id::text AS id FROM rental WHERE return_date IS NULL ORDER BY rental_id LIMIT 1",
      values: [],
    });
    const id = open.rows[0]!.id!;
    const key = { "idempotency-key": `return-${id}` };
    const returned = await post(`/rentals/${id}/return`, { staff_id: 1 }, key);
    expect(returned.status, returned.text).toBe(200);
    const retried = await post(`/rentals/${id}/return`, { staff_id: 1 }, key);
    expect([retried.status, retried.text]).toEqual([200, returned.text]);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    const withoutKey = await post(`/rentals/${id}/return`, { staff_id: 1 });
    expect(withoutKey.status).toBe(409);
  });

  it("refuses an empty or overlong key with a 400 naming the header", async () => {
    for (const bad of ['""', "x".repeat(256)]) {
      const r = await post("/actors", { first_name: "E", last_name: "BADKEY" }, { "idempotency-key": bad });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].location).toBe("header.idempotency-key");
    }
    expect(await count("BADKEY")).toBe(0);
  });
});
