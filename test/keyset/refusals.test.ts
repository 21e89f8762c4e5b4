/**
 * Every refusal around cursors, with its problem document (spec:
 * Pagination rules 2–4, Errors; decision 0500): a changed sort or null
 * placement names both orderings; `page` or `offset` next to `cursor` says
 * which to drop; an undecodable, tampered or forged cursor is a 400 at
 * `query.cursor`, never a 500, and its values are bind parameters; an offset
 * beyond MaxOffset points at `cursor`.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { ProblemDocument } from "../../runtime/problem.js";
import { setupPagila, type PagilaContext } from "../pagila/setup.js";
import { compileFile, serviceClient, type Answer, type TestClient } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { forge, openCursor, withCursor, type ListBody } from "./walk.js";
import { hooks } from "../../fixtures/pagila/hooks.js";

let ctx: PagilaContext;
let small: { db: TestDatabase; client: TestClient };

beforeAll(async () => {
  ctx = await setupPagila("keyset_refusals");
  const { service, ddl } = await compileFile(fileURLToPath(new URL("./keyset.resource", import.meta.url)));
  const db = await createTestDatabase("keyset_refusals_small");
  await db.executor.script(ddl + "INSERT INTO note (id, rank) SELECT g, g % 3 FROM generate_series(1, 60) AS g;");
  small = { db, client: serviceClient(service, db.executor) };
});

afterAll(async () => {
  await small?.db.drop();
  await ctx?.drop();
});

/** Asserts a 400 problem document and returns it. */
function problem(r: Answer): ProblemDocument {
  expect(r.status, r.text).toBe(400);
  expect(r.headers.get("content-type")).toContain("application/problem+json");
  const doc = r.body as ProblemDocument;
  expect(doc).toMatchObject({ type: "/problems/invalid-query", title: "Bad Request", status: 400 });
  const more =
    doc.errors.length > 1 ? ` (and ${doc.errors.length - 1} more problem${doc.errors.length > 2 ? "s" : ""})` : "";
  expect(doc.detail).toBe(doc.errors[0].detail + more);
  return doc;
}

/** Asserts exactly one problem, at `location`, whose detail matches `detail`. */
async function refused(client: TestClient, path: string, location: string, detail: string | RegExp) {
  const doc = problem(await client.get(path));
  expect(doc.errors).toHaveLength(1);
  expect(doc.errors[0].location).toBe(location);
  if (typeof detail === "string") expect(doc.errors[0].detail).toBe(detail);
  else expect(doc.errors[0].detail).toMatch(detail);
  return doc;
}

async function cursorOf(client: TestClient, path: string): Promise<string> {
  const r = await client.get<ListBody>(path);
  expect(r.status, r.text).toBe(200);
  expect(typeof r.body.next_cursor).toBe("string");
  return r.body.next_cursor as string;
}

const DAMAGED =
  /^cursor is damaged or was not issued by this service; pass next_cursor of the previous response unchanged$/;

describe("a cursor belongs to its ordering", () => {
  it("another sort names both orderings", async () => {
    const c = await cursorOf(ctx.client, "/rentals?per_page=5");
    await refused(
      ctx.client,
      withCursor("/rentals?sort=return_date", c),
      "query.cursor",
      "cursor was made for sort=-rental_date; this request sorts by return_date. " +
        "Repeat the sort of the request that returned the cursor, or drop cursor to start again",
    );
    const f = await cursorOf(ctx.client, "/films?sort=-rental_rate,title");
    await refused(
      ctx.client,
      withCursor("/films", f),
      "query.cursor",
      /^cursor was made for sort=-rental_rate,title; this request sorts by title \(the default order\)\. /,
    );
    // The direction alone is another ordering.
    const up = await cursorOf(ctx.client, "/films?sort=film_id");
    await refused(
      ctx.client,
      withCursor("/films?sort=-film_id", up),
      "query.cursor",
      /sort=film_id; this request sorts by -film_id\./,
    );
  });

  it("the same resolved ordering, however spelled, is accepted", async () => {
    const c = await cursorOf(ctx.client, "/films?per_page=10");
    for (const sort of ["title", "title.asc", "title,film_id", " title"]) {
      const r = await ctx.client.get<ListBody>(withCursor(`/films?per_page=10&sort=${sort}`, c));
      expect(r.status, `${sort}: ${r.text}`).toBe(200);
      expect(r.body.page).toBe(2);
    }
  });

  it("a changed null placement invalidates outstanding cursors", async () => {
    const c = await cursorOf(ctx.client, "/films?sort=length&per_page=10");
    const changed: ServiceDescriptor = structuredClone(ctx.service);
    const length = changed.tables.find((t) => t.name === "film")?.columns.find((col) => col.name === "length");
    if (!length) throw new Error("film.length not found");
    delete length.nulls;
    const after = serviceClient(changed, ctx.db.executor, hooks);
    await refused(
      after,
      withCursor("/films?sort=length&per_page=10", c),
      "query.cursor",
      /^cursor was made for sort=length \(nulls last\),film_id; this request sorts by length,film_id\. /,
    );
    length.nulls = "first";
    const first = serviceClient(changed, ctx.db.executor, hooks);
    await refused(
      first,
      withCursor("/films?sort=length", c),
      "query.cursor",
      /this request sorts by length \(nulls first\),film_id\./,
    );
  });

  it("a cursor of another resource is refused", async () => {
    const c = await cursorOf(ctx.client, "/actors?sort=actor_id");
    const forged = forge({ ...openCursor(c), o: "category_id" });
    await refused(
      ctx.client,
      withCursor("/categories?sort=category_id", forged),
      "query.cursor",
      /^cursor was made for \/actors, not \/categories; /,
    );
  });
});

describe("cursor with page or offset", () => {
  it("says which to drop", async () => {
    const c = await cursorOf(ctx.client, "/films");
    await refused(
      ctx.client,
      withCursor("/films?page=2", c),
      "query.page",
      "cursor and page cannot be combined: drop page (the cursor already says where the next page starts)",
    );
    await refused(
      ctx.client,
      withCursor("/films?offset=0", c),
      "query.offset",
      "cursor and offset cannot be combined: drop offset (the cursor already says where the next page starts)",
    );
    const both = problem(await ctx.client.get(withCursor("/films?page=2&offset=5", c)));
    expect(both.errors.map((e) => e.location)).toEqual(["query.page", "query.offset"]);
  });

  it("an empty cursor is refused", async () => {
    await refused(ctx.client, "/films?cursor=", "query.cursor", /^cursor is empty/);
  });
});

describe("undecodable, tampered and forged cursors are 400 at query.cursor", () => {
  it.each([
    ["not base64url", "not a cursor!"],
    ["base64 with padding and slashes", Buffer.from('{"v":1}').toString("base64") + "/=="],
    ["not JSON", Buffer.from("hello").toString("base64url")],
    ["a JSON array", forge([1, "/films", "title,film_id", 2, ["A", "1"]])],
    ["a JSON string", forge("cursor")],
    ["missing members", forge({ v: 1, r: "/films", o: "title,film_id" })],
    ["keys not an array", forge({ v: 1, r: "/films", o: "title,film_id", p: 2, k: "A,1" })],
    ["a key of the wrong JSON type", forge({ v: 1, r: "/films", o: "title,film_id", p: 2, k: ["A", 1] })],
    ["too few keys", forge({ v: 1, r: "/films", o: "title,film_id", p: 2, k: ["A"] })],
    ["too many keys", forge({ v: 1, r: "/films", o: "title,film_id", p: 2, k: ["A", "1", "2"] })],
    ["page 1", forge({ v: 1, r: "/films", o: "title,film_id", p: 1, k: ["A", "1"] })],
    ["a fractional page", forge({ v: 1, r: "/films", o: "title,film_id", p: 2.5, k: ["A", "1"] })],
    ["a page as text", forge({ v: 1, r: "/films", o: "title,film_id", p: "2", k: ["A", "1"] })],
    [
      "longer than 16384 characters",
      forge({ v: 1, r: "/films", o: "title,film_id", p: 2, k: ["A".repeat(13000), "1"] }),
    ],
  ])("%s", async (_name, cursor) => {
    await refused(ctx.client, withCursor("/films", cursor), "query.cursor", DAMAGED);
  });

  it("a truncated real cursor", async () => {
    const c = await cursorOf(ctx.client, "/films");
    await refused(ctx.client, withCursor("/films", c.slice(0, -3)), "query.cursor", DAMAGED);
  });

  it("another layout version", async () => {
    const c = openCursor(await cursorOf(ctx.client, "/films"));
    await refused(
      ctx.client,
      withCursor("/films", forge({ ...c, v: 2 })),
      "query.cursor",
      /^cursor was issued by another version of this service/,
    );
  });

  it.each<[string, string, (string | null)[], RegExp]>([
    ["/films", "title,film_id", ["A", "abc"], /its value for film_id is refused \(expected an integer\)/],
    [
      "/films",
      "title,film_id",
      ["A", "99999999999"],
      /its value for film_id is refused \(expected an integer from -2147483648 to 2147483647\)/,
    ],
    ["/films", "title,film_id", ["A", "1; DROP TABLE film"], /its value for film_id is refused/],
    ["/films", "title,film_id", [null, "1"], /its value for title is refused \(may not be null\)/],
    [
      "/films",
      "title,film_id",
      ["A\u0000", "1"],
      /its value for title is refused \(text may not contain the NUL character\)/,
    ],
    [
      "/films?sort=rating",
      "rating,film_id",
      ["X", "1"],
      /its value for rating is refused \(expected one of the enum values\)/,
    ],
    ["/films?sort=rental_rate", "rental_rate,film_id", ["cheap", "1"], /its value for rental_rate is refused/],
    [
      "/rentals",
      "-rental_date,-rental_id",
      ["yesterday", "1"],
      /its value for rental_date is refused \(expected an RFC 3339 timestamp/,
    ],
    ["/rentals", "-rental_date,-rental_id", ["2022-05-24T22:53:30", "1"], /its value for rental_date is refused/],
    [
      "/customers?sort=create_date",
      "create_date,customer_id",
      ["2022-02-30", "1"],
      /its value for create_date is refused \(expected a date/,
    ],
    ["/payments", "-payment_date,-payment_id", ["2022-02-01T00:00:00Z", "NaN"], /its value for payment_id is refused/],
  ])("%s, ordering %s, keys %j", async (path, o, k, detail) => {
    const r = path.split("?")[0];
    await refused(ctx.client, withCursor(path, forge({ v: 1, r, o, p: 2, k })), "query.cursor", detail);
  });

  it("a forged text key is only a bind parameter: the page starts after it", async () => {
    const quote = "ZORRO' OR '1'='1";
    const r = await ctx.client.get<ListBody<{ film_id: number }>>(
      withCursor("/films?per_page=5", forge({ v: 1, r: "/films", o: "title,film_id", p: 7, k: [quote, "0"] })),
    );
    expect(r.status, r.text).toBe(200);
    const expected = await ctx.db.executor.query({
      text: "SELECT film_id::text AS id FROM film WHERE (title, film_id) > ($1, 0) ORDER BY title, film_id LIMIT 5",
      values: [quote],
    });
    expect(r.body.items.map((i) => String(i.film_id))).toEqual(expected.rows.map((x) => x.id));
    expect(r.body.page).toBe(7);
    const n = await ctx.db.executor.query({ text: "SELECT count(*)::text AS n FROM film", values: [] });
    expect(n.rows[0].n).toBe("1000");
  });

  it("the special values PostgreSQL holds but URL filters refuse are accepted in a cursor", async () => {
    const ok = async (o: string, k: (string | null)[], path: string) => {
      const r = await small.client.get(withCursor(path, forge({ v: 1, r: "/notes", o, p: 2, k })));
      expect(r.status, r.text).toBe(200);
    };
    await ok("ratio (nulls last),id", ["NaN", "1"], "/notes?sort=ratio");
    await ok("ratio (nulls last),id", ["-Infinity", "1"], "/notes?sort=ratio");
    await ok("score,id", ["NaN", "1"], "/notes?sort=score");
    await ok("day (nulls last),id", ["infinity", "1"], "/notes?sort=day");
    await ok("at (nulls last),id", ["-infinity", "1"], "/notes?sort=at");
    await ok("zoned,id", ["10:00:00-05:30", "1"], "/notes?sort=zoned");
    await ok("rank (nulls last),id", [null, "1"], "/notes?sort=rank");
    const bad = await small.client.get(
      withCursor("/notes?sort=clock", forge({ v: 1, r: "/notes", o: "clock,id", p: 2, k: ["10:00+02", "1"] })),
    );
    expect(problem(bad).errors[0].detail).toMatch(/its value for clock is refused/);
  });

  it("problems elsewhere in the request are reported first, the cursor after them", async () => {
    const doc = problem(await ctx.client.get(withCursor("/films?rating=eq.X&per_page=0", "garbage!")));
    expect(doc.errors.map((e) => e.location)).toEqual(["query.rating", "query.per_page"]);
  });
});

describe("offset beyond MaxOffset points at cursor", () => {
  it("at the parameter that produced the offset (max_offset = 40 on /notes)", async () => {
    expect((await small.client.get("/notes?offset=40&per_page=5")).status).toBe(200);
    const o = await refused(
      small.client,
      "/notes?offset=41",
      "query.offset",
      /^offset 41 is beyond the maximum offset of 40; page deeper with cursor/,
    );
    expect(o.errors[0].detail).toContain("?cursor=");
    await refused(
      small.client,
      "/notes?page=10&per_page=5",
      "query.page",
      /^offset 45 is beyond the maximum offset of 40; page deeper with cursor/,
    );
    // A cursor reaches rows beyond MaxOffset.
    const deep = await small.client.get<ListBody<{ id: number }>>(
      withCursor("/notes?sort=id&per_page=5", forge({ v: 1, r: "/notes", o: "id", p: 10, k: ["45"] })),
    );
    expect(deep.body.items.map((i) => i.id)).toEqual([46, 47, 48, 49, 50]);
  });

  it("with the package default of 100000 on Pagila", async () => {
    expect((await ctx.client.get("/films?offset=100000")).status).toBe(200);
    await refused(
      ctx.client,
      "/films?offset=100001",
      "query.offset",
      /^offset 100001 is beyond the maximum offset of 100000; page deeper with cursor/,
    );
  });
});
