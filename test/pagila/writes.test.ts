/**
 * Writes over Pagila: status codes, Location, what lands in the database,
 * and how the database's own rules come back as problem documents
 * (docs/http.md, "Wire decisions"; docs/pagila-mapping.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupPagila, type PagilaContext } from "./setup.js";

let ctx: PagilaContext;
beforeAll(async () => {
  ctx = await setupPagila("pagila_writes");
});
afterAll(() => ctx?.drop());

const one = async (text: string, values: (string | null)[] = []) => (await ctx.db.executor.query({ text, values })).rows[0];

describe("create, update, delete", () => {
  it("creates an actor: 201, Location, the stored row", async () => {
    const r = await ctx.client.request("POST", "/actors", { first_name: "GRACE", last_name: "HOPPER" });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ first_name: "GRACE", last_name: "HOPPER" });
    expect(typeof r.body.actor_id).toBe("number");
    expect(r.headers.get("location")).toBe(`/actors/${r.body.actor_id}`);
    const row = await one("select first_name, last_name from actor where actor_id = $1::int", [String(r.body.actor_id)]);
    expect(row).toEqual({ first_name: "GRACE", last_name: "HOPPER" });
    const read = await ctx.client.get(`/actors/${r.body.actor_id}`);
    expect(read.body).toEqual(r.body);
  });

  it("updates only the fields sent", async () => {
    const before = await ctx.client.get("/films/10");
    const r = await ctx.client.request("PATCH", "/films/10", { rental_rate: "3.49", length: 99 });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ film_id: 10, rental_rate: "3.49", length: 99, title: before.body.title });
    const row = await one("select rental_rate::text rr, length::text len, title from film where film_id = 10");
    expect(row).toEqual({ rr: "3.49", len: "99", title: before.body.title });
    const numeric = await ctx.client.request("PATCH", "/films/10", { rental_rate: 1.99 });
    expect(numeric.body.rental_rate).toBe("1.99");
  });

  it("deletes: 204, then 404", async () => {
    const made = await ctx.client.request("POST", "/actors", { first_name: "TEMP", last_name: "ACTOR" });
    const del = await ctx.client.request("DELETE", `/actors/${made.body.actor_id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await ctx.client.request("DELETE", `/actors/${made.body.actor_id}`)).status).toBe(404);
    expect((await ctx.client.request("PATCH", `/actors/${made.body.actor_id}`, { first_name: "X" })).status).toBe(404);
    expect(await one("select count(*)::text n from actor where actor_id = $1::int", [String(made.body.actor_id)])).toEqual({ n: "0" });
  });

  it("creates a rental and reads dates back in RFC 3339", async () => {
    const r = await ctx.client.request("POST", "/rentals", {
      rental_date: "2026-11-21T10:15:30.123456Z",
      inventory_id: 1,
      customer_id: 1,
      staff_id: 1,
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.rental_date).toBe("2026-11-21T10:15:30.123456Z");
    expect(r.body.return_date).toBeNull();
  });
});

describe("refusals of writes", () => {
  it("malformed JSON is a 400 at body", async () => {
    const r = await ctx.client.request("POST", "/actors", "{not json");
    expect(r.status).toBe(400);
    expect(r.body.errors[0].location).toBe("body");
  });
  it("read-only and unknown fields are 400 listing the writable fields", async () => {
    const r = await ctx.client.request("POST", "/actors", { first_name: "A", last_name: "B", last_update: "2020-01-01T00:00:00Z", nick: "x" });
    expect(r.status).toBe(400);
    const locations = r.body.errors.map((e: { location: string }) => e.location).sort();
    expect(locations).toEqual(["body.last_update", "body.nick"]);
    expect(r.body.errors[0].allowed).toEqual(expect.arrayContaining(["first_name", "last_name"]));
    expect(r.body.errors[0].allowed).not.toContain("last_update");
  });
  it("a missing required field is a 400", async () => {
    const r = await ctx.client.request("POST", "/actors", { first_name: "A" });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].location).toBe("body.last_name");
  });
  it("an empty change set is a 400", async () => {
    const r = await ctx.client.request("PATCH", "/actors/1", {});
    expect(r.status).toBe(400);
    expect(r.body.errors[0].allowed).toEqual(expect.arrayContaining(["first_name", "last_name"]));
  });
  it("a unique violation is a 409 without the constraint name", async () => {
    const existing = await one("select to_char(rental_date at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') d, inventory_id::text i, customer_id::text c, staff_id::text s from rental where rental_id = 1");
    const r = await ctx.client.request("POST", "/rentals", {
      rental_date: existing.d,
      inventory_id: Number(existing.i),
      customer_id: Number(existing.c),
      staff_id: Number(existing.s),
    });
    expect(r.status, r.text).toBe(409);
    expect(r.text).not.toMatch(/idx_unq|rental_date_inventory|constraint|INSERT/i);
  });
  it("a foreign key violation is a 422", async () => {
    const r = await ctx.client.request("POST", "/rentals", { rental_date: "2026-01-01T00:00:00Z", inventory_id: 999999, customer_id: 1, staff_id: 1 });
    expect(r.status, r.text).toBe(422);
    expect(r.text).not.toMatch(/fkey|constraint|INSERT/i);
  });
  it("a domain check violation is a 422", async () => {
    const r = await ctx.client.request("PATCH", "/films/1", { release_year: 1800 });
    expect(r.status, r.text).toBe(422);
    expect(r.text).not.toMatch(/year_check|constraint|UPDATE/i);
  });
});
