/**
 * The declared action of the Pagila fixture, `POST /rentals/{id}/return`,
 * over HTTP against PostgreSQL (docs/decisions/1334-declared-actions.md,
 * fixtures/pagila/hooks.ts): the row is locked and answered as a read, the
 * input is checked like a create body, the implementation's problems come
 * back as problem documents and roll back, `If-Match` is weighed against
 * the locked row, and the mount refuses a missing implementation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupPagila, type PagilaContext } from "./setup.js";
import { registrationErrors } from "../../runtime/hooks/registration.js";
import { serviceClient } from "../support/service.js";

let ctx: PagilaContext;
beforeAll(async () => {
  ctx = await setupPagila("pagila_actions");
});
afterAll(() => ctx?.drop());

const one = async (text: string, values: (string | null)[] = []) =>
  (await ctx.db.executor.query({ text, values })).rows[0];

/** A rental not yet returned, made for the test so tests do not share rows. */
async function openRental(): Promise<number> {
  const r = await ctx.client.request("POST", "/rentals", {
    rental_date: new Date().toISOString(),
    inventory_id: 10 + Math.floor(Math.random() * 4000),
    customer_id: 1 + Math.floor(Math.random() * 500),
    staff_id: 1,
  });
  expect(r.status, r.text).toBe(201);
  return r.body.rental_id as number;
}

describe("POST /rentals/{id}/return", () => {
  it("sets return_date to the transaction's time and answers the row as a read does, with its ETag", async () => {
    const id = await openRental();
    const r = await ctx.client.request("POST", `/rentals/${id}/return`, { staff_id: 2 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.rental_id).toBe(id);
    expect(typeof r.body.return_date).toBe("string");
    const read = await ctx.client.get(`/rentals/${id}`);
    expect(r.body).toEqual(read.body);
    expect(r.headers.get("etag")).toBe(read.headers.get("etag"));
    const stored = await one("select return_date is not null as back from rental where rental_id = $1::int", [
      String(id),
    ]);
    expect(stored).toEqual({ back: true });
  });

  it("answers 409 for a rental already returned, and writes nothing", async () => {
    const id = await openRental();
    expect((await ctx.client.request("POST", `/rentals/${id}/return`, { staff_id: 1 })).status).toBe(200);
    const before = await one("select return_date::text d from rental where rental_id = $1::int", [String(id)]);
    const again = await ctx.client.request("POST", `/rentals/${id}/return`, { staff_id: 1 });
    expect(again.status).toBe(409);
    expect(again.headers.get("content-type")).toContain("application/problem+json");
    expect(again.body).toMatchObject({ type: "/problems/conflict", status: 409, errors: [{ location: "path.id" }] });
    expect(await one("select return_date::text d from rental where rental_id = $1::int", [String(id)])).toEqual(before);
  });

  it("rolls back what the implementation wrote before refusing", async () => {
    const id = await openRental();
    await ctx.db.executor.query({ text: "UPDATE staff SET active = false WHERE staff_id = 2", values: [] });
    try {
      const r = await ctx.client.request("POST", `/rentals/${id}/return`, { staff_id: 2 });
      expect(r.status).toBe(422);
      expect(r.body.errors).toEqual([{ location: "body.staff_id", detail: "no longer active" }]);
    } finally {
      await ctx.db.executor.query({ text: "UPDATE staff SET active = true WHERE staff_id = 2", values: [] });
    }
    expect(await one("select return_date from rental where rental_id = $1::int", [String(id)])).toEqual({
      return_date: null,
    });
  });

  it("checks the input like a create body: missing, unknown and wrongly typed fields, listing what is allowed", async () => {
    const id = await openRental();
    const missing = await ctx.client.request("POST", `/rentals/${id}/return`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ location: "body.staff_id", detail: "staff_id is required" }]);
    const empty = await ctx.client.request("POST", `/rentals/${id}/return`);
    expect(empty.status).toBe(400);
    const wrong = await ctx.client.request("POST", `/rentals/${id}/return`, { staff_id: "one", note: "x" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([
      expect.objectContaining({ location: "body.staff_id", value: "one" }),
      { location: "body.note", detail: "unknown field note", allowed: ["staff_id"] },
    ]);
    const query = await ctx.client.request("POST", `/rentals/${id}/return?expand=customer`, { staff_id: 1 });
    expect(query.status).toBe(400);
    expect(query.body.errors[0].location).toBe("query.expand");
    expect(await one("select return_date from rental where rental_id = $1::int", [String(id)])).toEqual({
      return_date: null,
    });
  });

  it("answers 404 for a row that is not there, 400 for a malformed key", async () => {
    const absent = await ctx.client.request("POST", "/rentals/99999999/return", { staff_id: 1 });
    expect(absent.status).toBe(404);
    expect(absent.body.type).toBe("/problems/not-found");
    expect((await ctx.client.request("POST", "/rentals/abc/return", { staff_id: 1 })).status).toBe(400);
  });

  it("with If-Match: 412 when the row changed since, and of two concurrent returns with one tag exactly one succeeds", async () => {
    const id = await openRental();
    const tag = (await ctx.client.get(`/rentals/${id}`)).headers.get("etag")!;
    await ctx.client.request("PATCH", `/rentals/${id}`, { staff_id: 2 });
    const stale = await ctx.client.request("POST", `/rentals/${id}/return`, { staff_id: 1 }, { "if-match": tag });
    expect(stale.status).toBe(412);
    expect(stale.body.errors[0].location).toBe("header.if-match");
    const fresh = (await ctx.client.get(`/rentals/${id}`)).headers.get("etag")!;
    const both = await Promise.all(
      [1, 2].map(() => ctx.client.request("POST", `/rentals/${id}/return`, { staff_id: 1 }, { "if-match": fresh })),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 412]);
  });

  it("is not mounted without its implementation: the registration error names the action and its route", () => {
    const errors = registrationErrors(ctx.service, {});
    expect(errors).toEqual([
      expect.objectContaining({
        kind: "missing-action",
        table: "rental",
        message: expect.stringContaining("POST /rentals/{id}/return"),
      }),
    ]);
    expect(() => serviceClient(ctx.service, ctx.db.executor)).toThrow(/hooks\.actions\.rental\.return/);
    const stray = registrationErrors(ctx.service, { actions: { rental: { return: () => {}, renew: () => {} } } });
    expect(stray).toEqual([
      expect.objectContaining({ kind: "unknown-action", resource: "hooks.actions.rental.renew" }),
    ]);
  });
});
