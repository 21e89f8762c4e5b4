/**
 * Keyset pagination on Pagila (spec: Pagination, List response
 * shape): walking whole tables by cursor gives every row exactly once, in
 * the order of one big ordered SQL query, for ascending and descending
 * orderings, nullable nulls-last columns (`film.length`, `rental.return_date`),
 * composite keys (`payment`, `film_actor`) and a projection without the sort
 * column; `next_cursor` is on every page with a next page, offset-paged ones
 * included, and absent on the last.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupPagila, type PagilaContext } from "../pagila/setup.js";
import { openCursor, walk, withCursor, type ListBody } from "./walk.js";

let ctx: PagilaContext;

beforeAll(async () => {
  ctx = await setupPagila("keyset_pagila");
  // The shipped films all have a length; NULLs make the declared nulls-last placement matter.
  await ctx.db.executor.script("UPDATE film SET length = NULL WHERE film_id % 17 = 0");
});

afterAll(() => ctx?.drop());

/** The first column of `sql`'s rows, as text. */
async function column(sql: string): Promise<string[]> {
  const r = await ctx.db.executor.query({ text: sql, values: [] });
  return r.rows.map((x) => String(Object.values(x)[0]));
}

/** Walks `path` and compares the `key` of every item with one ordered SQL query. */
async function compareWalk(path: string, key: (item: Record<string, unknown>) => string, sql: string) {
  const w = await walk(ctx.client, path);
  const expected = await column(sql);
  expect(expected.length).toBeGreaterThan(0);
  const got = w.items.map(key);
  expect(new Set(got).size).toBe(got.length);
  expect(got).toEqual(expected);
  return w;
}

const filmId = (i: Record<string, unknown>) => String(i.film_id);

describe("walks equal one ordered SQL query", () => {
  it("films in the default order (title)", async () => {
    await compareWalk("/films?per_page=97", filmId, "SELECT film_id FROM film ORDER BY title, film_id");
  });

  it("films by length, nulls last, ascending and descending", async () => {
    expect(await column("SELECT count(*) FROM film WHERE length IS NULL")).toEqual(["58"]);
    await compareWalk(
      "/films?sort=length&per_page=50",
      filmId,
      "SELECT film_id FROM film ORDER BY length ASC NULLS LAST, film_id ASC",
    );
    await compareWalk(
      "/films?sort=-length&per_page=50",
      filmId,
      "SELECT film_id FROM film ORDER BY length DESC NULLS LAST, film_id DESC",
    );
    await compareWalk(
      "/films?sort=length.desc,title&per_page=64",
      filmId,
      "SELECT film_id FROM film ORDER BY length DESC NULLS LAST, title ASC, film_id ASC",
    );
  });

  it("a select that omits the sort columns", async () => {
    const w = await compareWalk(
      "/films?sort=-length,rental_rate&select=title&per_page=75",
      filmId,
      "SELECT film_id FROM film ORDER BY length DESC NULLS LAST, rental_rate ASC, film_id ASC",
    );
    expect(new Set(w.items.map((i) => Object.keys(i).join(",")))).toEqual(new Set(["film_id,title"]));
  });

  it("rentals by return_date (nulls last, 183 NULLs), both directions, and the default -rental_date", async () => {
    const rentalId = (i: Record<string, unknown>) => String(i.rental_id);
    await compareWalk(
      "/rentals?sort=return_date&per_page=200",
      rentalId,
      "SELECT rental_id FROM rental ORDER BY return_date ASC NULLS LAST, rental_id ASC",
    );
    await compareWalk(
      "/rentals?sort=-return_date&per_page=200",
      rentalId,
      "SELECT rental_id FROM rental ORDER BY return_date DESC NULLS LAST, rental_id DESC",
    );
    await compareWalk(
      "/rentals?per_page=200",
      rentalId,
      "SELECT rental_id FROM rental ORDER BY rental_date DESC, rental_id DESC",
    );
  });

  it("payments: composite key (payment_date, payment_id), default order and by amount", async () => {
    const paymentKey = (i: Record<string, unknown>) => `${i.payment_date}/${i.payment_id}`;
    const utc = `to_char(payment_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || 'Z'`;
    // The JSON trims trailing zeros of the fraction (decision 0400); so does this expression.
    const key = `regexp_replace(regexp_replace(${utc}, '0+Z$', 'Z'), '\\.Z$', 'Z') || '/' || payment_id`;
    await compareWalk(
      "/payments?per_page=200",
      paymentKey,
      `SELECT ${key} FROM payment ORDER BY payment_date DESC, payment_id DESC`,
    );
    await compareWalk(
      "/payments?sort=amount&per_page=200",
      paymentKey,
      `SELECT ${key} FROM payment ORDER BY amount ASC, payment_date ASC, payment_id ASC`,
    );
  });

  it("film_actors: composite key (actor_id, film_id) as tiebreak of film_id", async () => {
    await compareWalk(
      "/film_actors?sort=-film_id&per_page=200",
      (i) => `${i.actor_id}/${i.film_id}`,
      "SELECT actor_id || '/' || film_id FROM film_actor ORDER BY film_id DESC, actor_id DESC",
    );
  });

  it("customers by create_date (a date; every customer shares it)", async () => {
    await compareWalk(
      "/customers?sort=create_date&per_page=100",
      (i) => String(i.customer_id),
      "SELECT customer_id FROM customer ORDER BY create_date, customer_id",
    );
  });

  it("with filters, search and expansion", async () => {
    const w = await compareWalk(
      "/films?rating=eq.PG&search=love&expand=language&sort=-replacement_cost&per_page=3",
      filmId,
      "SELECT film_id FROM film WHERE rating = 'PG' AND (title ILIKE '%love%' OR description ILIKE '%love%') ORDER BY replacement_cost DESC, film_id DESC",
    );
    expect(w.items.every((i) => (i.language as { language_id: number }).language_id === i.language_id)).toBe(true);
  });

  it("count=exact is the whole filtered set on every page", async () => {
    const w = await walk(ctx.client, "/rentals?customer_id=lt.50&count=exact&per_page=100");
    const [n] = await column("SELECT count(*) FROM rental WHERE customer_id < 50");
    expect(w.items).toHaveLength(Number(n));
    expect(w.pages.map((p) => p.total)).toEqual(w.pages.map(() => Number(n)));
  });
});

describe("next_cursor and page", () => {
  it("is absent on the last page, also when the last page is exactly full", async () => {
    const all = await ctx.client.get<ListBody>("/languages?per_page=6");
    expect(all.body.items).toHaveLength(6);
    expect(all.body).toMatchObject({ page: 1, has_more: false });
    expect(Object.keys(all.body)).not.toContain("next_cursor");
    const half = await ctx.client.get<ListBody>("/languages?per_page=3");
    expect(half.body.has_more).toBe(true);
    const rest = await ctx.client.get<ListBody>(withCursor("/languages?per_page=3", half.body.next_cursor as string));
    expect(rest.body.items.map((l) => l.language_id)).toEqual([4, 5, 6]);
    expect(rest.body).toMatchObject({ page: 2, has_more: false });
    expect(Object.keys(rest.body)).not.toContain("next_cursor");
    const empty = await ctx.client.get<ListBody>("/films?title=eq.NOPE");
    expect(empty.body).toEqual({ items: [], page: 1, per_page: 25, has_more: false });
  });

  it("an offset page with a next page carries next_cursor, which resumes right after it", async () => {
    const p3 = await ctx.client.get<ListBody>("/films?sort=-length&page=3&per_page=10");
    expect(p3.body).toMatchObject({ page: 3, per_page: 10, has_more: true });
    expect(typeof p3.body.next_cursor).toBe("string");
    const next = await ctx.client.get<ListBody>(
      withCursor("/films?sort=-length&per_page=10", p3.body.next_cursor as string),
    );
    const p4 = await ctx.client.get<ListBody>("/films?sort=-length&page=4&per_page=10");
    expect(next.body.items).toEqual(p4.body.items);
    expect(next.body.page).toBe(4);

    const o = await ctx.client.get<ListBody>("/films?offset=35&per_page=10");
    expect(o.body).toMatchObject({ page: 1, has_more: true });
    const after = await ctx.client.get<ListBody>(withCursor("/films?per_page=10", o.body.next_cursor as string));
    const o45 = await ctx.client.get<ListBody>("/films?offset=45&per_page=10");
    expect(after.body.items).toEqual(o45.body.items);
  });

  it("the last page of offset paging has no next_cursor", async () => {
    const last = await ctx.client.get<ListBody>("/films?page=10&per_page=100");
    expect(last.body).toMatchObject({ page: 10, has_more: false });
    expect(Object.keys(last.body)).not.toContain("next_cursor");
  });

  it("page numbers of a cursor walk match offset pages on an unchanged table", async () => {
    const w = await walk(ctx.client, "/actors?per_page=40");
    expect(w.pages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
    const p4 = await ctx.client.get<ListBody>("/actors?page=4&per_page=40");
    expect(w.pages[3].items).toEqual(p4.body.items);
  });

  it("per_page may change between pages; the members come in the spec's order", async () => {
    const first = await ctx.client.get<ListBody>("/films?per_page=5&count=exact");
    expect(Object.keys(first.body)).toEqual(["items", "page", "per_page", "has_more", "next_cursor", "total"]);
    const more = await ctx.client.get<ListBody>(withCursor("/films?per_page=20", first.body.next_cursor as string));
    const expected = await column("SELECT film_id FROM film ORDER BY title, film_id OFFSET 5 LIMIT 20");
    expect(more.body.items.map(filmId)).toEqual(expected);
  });

  it("the cursor carries the resource, the ordering with placements, the page and the keys", async () => {
    const r = await ctx.client.get<ListBody>("/rentals?sort=-return_date&per_page=2");
    const last = r.body.items[1] as { rental_id: number; return_date: string };
    const c = openCursor(r.body.next_cursor as string);
    expect(c).toMatchObject({ v: 1, r: "/rentals", o: "-return_date (nulls last),-rental_id", p: 2 });
    expect(c.k).toHaveLength(2);
    // The member's ISO text with Z: as many fraction digits as the value has (decision 1349).
    expect(c.k[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/);
    expect(new Date(c.k[0] as string).getTime()).toBe(new Date(last.return_date).getTime());
    expect(c.k[1]).toBe(String(last.rental_id));
  });
});
