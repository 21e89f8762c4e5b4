/**
 * Relation expansion on Pagila (spec: Expansion, Expanded
 * relation shapes): each expansion equals the same question asked of
 * PostgreSQL directly, and each expanded row equals a direct read of it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import { setupPagila, type PagilaContext } from "../pagila/setup.js";
import { serviceClient, type TestClient } from "../support/service.js";
import { recording, tablesRead, type Recording } from "./recording.js";
import { hooks } from "../../fixtures/pagila/hooks.js";

type Row = Record<string, unknown>;
type Inverse = { items: Row[]; has_more: boolean };

let ctx: PagilaContext;
let rec: Recording;
let client: TestClient;

beforeAll(async () => {
  ctx = await setupPagila("expansion_pagila");
  // Pagila ships no original language; two films get one, so the nullable forward relation has both cases.
  await ctx.db.executor.script("UPDATE film SET original_language_id = 2 WHERE film_id IN (1, 3)");
  rec = recording(ctx.db.executor);
  client = serviceClient(ctx.service, rec.executor, hooks);
});

afterAll(() => ctx?.drop());

async function sql(text: string, values: (string | null)[] = []): Promise<Record<string, string | null>[]> {
  return (await ctx.db.executor.query({ text, values })).rows;
}

async function get<T = Row>(path: string): Promise<T> {
  const r = await client.get<T>(path);
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return r.body;
}

/** Children of each parent, as SQL gives them: `parent → [child key, …]` in the expansion's order. */
async function childrenBy(parent: string, key: string, table: string, order: string): Promise<Map<string, string[]>> {
  const rows = await sql(`SELECT ${parent}::text AS p, ${key} AS c FROM ${table} ORDER BY ${parent}, ${order}`);
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.p as string, [...(out.get(r.p as string) ?? []), r.c as string]);
  return out;
}

/** Asserts an inverse expansion: the first `cap` children SQL gives, and has_more when SQL has more. */
function expectChildren(got: Inverse, all: string[] | undefined, cap: number, key: (r: Row) => string): void {
  const expected = all ?? [];
  expect(Object.keys(got)).toEqual(["items", "has_more"]);
  expect(got.items.map(key)).toEqual(expected.slice(0, cap));
  expect(got.has_more).toBe(expected.length > cap);
}

describe("films?expand=language,cast equals PostgreSQL", () => {
  it("each film's language row and its first 20 film_actor rows ordered by actor_id", async () => {
    const body = await get<{ items: (Row & { language: Row; cast: Inverse })[] }>(
      "/films?expand=language,cast&per_page=25",
    );
    const ids = (await sql("SELECT film_id::text AS id FROM film ORDER BY title, film_id LIMIT 25")).map((r) => r.id);
    expect(body.items.map((f) => String(f.film_id))).toEqual(ids);
    const cast = await childrenBy("film_id", "actor_id::text", "film_actor", "actor_id");
    const languages = new Map(
      (await sql("SELECT language_id::text AS id, name FROM language")).map((r) => [r.id, r.name]),
    );
    for (const film of body.items) {
      // Forward: the target row; the reference column keeps its own key and value.
      expect(film.language_id).toBe(film.language.language_id);
      expect(film.language.name).toBe(languages.get(String(film.language_id)));
      expect(Object.keys(film.language)).toEqual(["language_id", "name", "last_update"]);
      // Inverse: capped at the declared 20, ordered by actor_id plus the child's key.
      expectChildren(film.cast, cast.get(String(film.film_id)), 20, (r) => String(r.actor_id));
      for (const child of film.cast.items) {
        expect(Object.keys(child)).toEqual(["actor_id", "film_id", "last_update"]);
        expect(child.film_id).toBe(film.film_id);
      }
      // Members: the columns in declaration order, then the expansions in request order.
      expect(Object.keys(film).slice(-2)).toEqual(["language", "cast"]);
    }
  });

  it("the expanded language equals a direct read of it, and so does a read with expand", async () => {
    const body = await get<{ items: (Row & { language: Row })[] }>("/films?expand=language&per_page=10&sort=film_id");
    for (const film of body.items) {
      expect(film.language).toEqual(await get(`/languages/${film.language_id}`));
      const read = await get<Row>(`/films/${film.film_id}?expand=language`);
      expect(read).toEqual(film);
    }
  });

  it("expansion order follows the request; repeated and duplicated names are the same request", async () => {
    const a = await get<{ items: Row[] }>("/films?expand=cast,language&per_page=3");
    expect(Object.keys(a.items[0]).slice(-2)).toEqual(["cast", "language"]);
    const b = await get<{ items: Row[] }>("/films?expand=cast&expand=language,cast&per_page=3");
    expect(b).toEqual(a);
  });

  it("with a projection that omits the reference column", async () => {
    const body = await get<{ items: Row[] }>("/films?select=title&expand=language&per_page=5&sort=film_id");
    expect(body.items.map((f) => Object.keys(f))).toEqual(body.items.map(() => ["film_id", "title", "language"]));
    const langs = await sql("SELECT language_id FROM film ORDER BY film_id LIMIT 5");
    expect(body.items.map((f) => (f.language as Row).language_id)).toEqual(langs.map((r) => Number(r.language_id)));
  });
});

describe("forward relations", () => {
  it("a NULL reference expands to null; a set one to the row", async () => {
    const body = await get<{ items: Row[] }>("/films?expand=original_language&per_page=3&sort=film_id");
    expect(body.items.map((f) => f.original_language_id)).toEqual([2, null, 2]);
    expect(body.items[1].original_language).toBeNull();
    expect(body.items[0].original_language).toEqual(await get("/languages/2"));
  });

  it("hidden columns of the target are omitted (staff.password, staff.picture)", async () => {
    const store = await get<Row & { manager: Row }>("/stores/1?expand=manager,address");
    expect(store.manager_staff_id).toBe(store.manager.staff_id);
    expect(Object.keys(store.manager)).not.toContain("password");
    expect(Object.keys(store.manager)).not.toContain("picture");
    expect(store.manager).toEqual(await get(`/staff/${store.manager_staff_id}`));
    const rentals = await client.get("/rentals?expand=staff&per_page=5");
    expect(rentals.text).not.toMatch(/password|picture/);
  });

  it("every forward relation of rentals and payments equals a direct read of its target", async () => {
    const rentals = await get<{ items: Row[] }>("/rentals?expand=customer,inventory,staff&per_page=8");
    for (const r of rentals.items) {
      expect(r.customer).toEqual(await get(`/customers/${r.customer_id}`));
      expect(r.inventory).toEqual(await get(`/inventory/${r.inventory_id}`));
      expect(r.staff).toEqual(await get(`/staff/${r.staff_id}`));
    }
    const payments = await get<{ items: Row[] }>("/payments?expand=customer,rental,staff&per_page=8&sort=amount");
    for (const p of payments.items) {
      expect(p.customer).toEqual(await get(`/customers/${p.customer_id}`));
      expect(p.rental).toEqual(await get(`/rentals/${p.rental_id}`));
      expect(p.staff).toEqual(await get(`/staff/${p.staff_id}`));
    }
  });

  it("date columns inside an expansion have the form of a direct read (RFC 3339 at UTC midnight)", async () => {
    const r = await get<Row & { customer: Row }>("/rentals/1?expand=customer");
    const [{ d }] = await sql("SELECT create_date::text AS d FROM customer WHERE customer_id = $1::int", [
      String(r.customer_id),
    ]);
    expect(r.customer.create_date).toBe(`${d}T00:00:00Z`);
    expect(r.customer.create_date).toBe((await get<Row>(`/customers/${r.customer_id}`)).create_date);
  });

  it("dates and timestamps inside expansions do not depend on the session time zone", async (t) => {
    if (ctx.db.kind !== "pg" || !ctx.db.url) return t.skip();
    const u = new URL(ctx.db.url);
    u.searchParams.set("options", "-c TimeZone=Pacific/Chatham -c DateStyle=German");
    const far = createPgExecutor({ connectionString: u.toString(), max: 1 });
    try {
      const farClient = serviceClient(ctx.service, far, hooks);
      const path = "/rentals?expand=customer,staff&per_page=20&sort=rental_id";
      const there = await farClient.get(path);
      expect(there.status, there.text).toBe(200);
      expect(there.body).toEqual(await get(path));
      const cust = await farClient.get("/customers/1?expand=rentals,payments");
      expect(cust.body).toEqual(await get("/customers/1?expand=rentals,payments"));
    } finally {
      await far.close();
    }
  });
});

describe("inverse relations", () => {
  it("languages?expand=films: declared limit 10, ordered by title then film_id", async () => {
    const body = await get<{ items: (Row & { films: Inverse })[] }>("/languages?expand=films");
    const films = await childrenBy("language_id", "film_id::text", "film", "title, film_id");
    expect(body.items.length).toBeGreaterThanOrEqual(6);
    for (const lang of body.items)
      expectChildren(lang.films, films.get(String(lang.language_id)), 10, (r) => String(r.film_id));
    expect(body.items.some((l) => l.films.has_more)).toBe(true);
    // Children are rows as a direct read gives them, with no expansion of their own (one level).
    const first = body.items[0].films.items[0];
    expect(first).toEqual(await get(`/films/${first.film_id}`));
  });

  it("countries?expand=cities: the default cap of 50 (India has 60 cities)", async () => {
    const body = await get<{ items: (Row & { cities: Inverse })[] }>(
      "/countries?expand=cities&per_page=200&sort=country_id",
    );
    const cities = await childrenBy("country_id", "city_id::text", "city", "city, city_id");
    expect(body.items).toHaveLength(109);
    for (const c of body.items)
      expectChildren(c.cities, cities.get(String(c.country_id)), 50, (r) => String(r.city_id));
    const india = body.items.find((c) => c.country === "India");
    expect(india?.cities.items).toHaveLength(50);
    expect(india?.cities.has_more).toBe(true);
  });

  it("customers?expand=rentals,payments: -rental_date limit 10, -payment_date limit 50, key tiebreak descending", async () => {
    const body = await get<{ items: (Row & { rentals: Inverse; payments: Inverse })[] }>(
      "/customers?expand=rentals,payments&per_page=40&sort=customer_id",
    );
    const rentals = await childrenBy("customer_id", "rental_id::text", "rental", "rental_date DESC, rental_id DESC");
    const payments = await childrenBy(
      "customer_id",
      "payment_id::text",
      "payment",
      "payment_date DESC, payment_id DESC",
    );
    for (const c of body.items) {
      expectChildren(c.rentals, rentals.get(String(c.customer_id)), 10, (r) => String(r.rental_id));
      expectChildren(c.payments, payments.get(String(c.customer_id)), 50, (r) => String(r.payment_id));
    }
    expect(body.items.every((c) => c.rentals.has_more)).toBe(true);
  });

  it("film inventory, categories and actor film_roles", async () => {
    const films = await get<{ items: (Row & { inventory: Inverse; categories: Inverse })[] }>(
      "/films?expand=inventory,categories&per_page=60&sort=film_id",
    );
    const inventory = await childrenBy("film_id", "inventory_id::text", "inventory", "inventory_id");
    const categories = await childrenBy("film_id", "category_id::text", "film_category", "film_id, category_id");
    for (const f of films.items) {
      expectChildren(f.inventory, inventory.get(String(f.film_id)), 50, (r) => String(r.inventory_id));
      expectChildren(f.categories, categories.get(String(f.film_id)), 50, (r) => String(r.category_id));
    }
    const actors = await get<{ items: (Row & { film_roles: Inverse })[] }>("/actors?expand=film_roles&per_page=50");
    const roles = await childrenBy("actor_id", "film_id::text", "film_actor", "film_id, actor_id");
    for (const a of actors.items)
      expectChildren(a.film_roles, roles.get(String(a.actor_id)), 50, (r) => String(r.film_id));
  });

  it("a parent with no children gives an empty collection", async () => {
    await ctx.db.executor.script(
      "INSERT INTO language (language_id, name) VALUES (99, 'Latin') ON CONFLICT (language_id) DO NOTHING",
    );
    expect((await get<Row>("/languages/99?expand=films")).films).toEqual({ items: [], has_more: false });
  });

  it("the remainder is fetched through GET /<child>?<reference_column>=eq.<id>&sort=…&page=<n>", async () => {
    const lang = await get<Row & { films: Inverse }>("/languages/1?expand=films");
    const p1 = await get<{ items: Row[] }>("/films?language_id=eq.1&sort=title&per_page=10&page=1");
    expect(p1.items).toEqual(lang.films.items);
    const p2 = await get<{ items: Row[] }>("/films?language_id=eq.1&sort=title&per_page=10&page=2");
    const all = (await childrenBy("language_id", "film_id::text", "film", "title, film_id")).get("1") ?? [];
    expect(p2.items.map((f) => String(f.film_id))).toEqual(all.slice(10, 20));

    const cust = await get<Row & { rentals: Inverse; payments: Inverse }>("/customers/1?expand=rentals,payments");
    expect((await get<{ items: Row[] }>("/rentals?customer_id=eq.1&sort=-rental_date&per_page=10")).items).toEqual(
      cust.rentals.items,
    );
    expect((await get<{ items: Row[] }>("/payments?customer_id=eq.1&sort=-payment_date&per_page=50")).items).toEqual(
      cust.payments.items,
    );
  });
});

describe("one statement, nothing joined unless asked, counts not multiplied", () => {
  it("an unexpanded list or read reads its own table only", async () => {
    rec.clear();
    await get("/films?per_page=5");
    await get("/films/1");
    await get("/customers?per_page=5&count=exact");
    expect(rec.statements.map(tablesRead)).toEqual([["film"], ["film"], ["customer"], ["customer"]]);
  });

  it("expansions are read in the base rows' statement; the count statement never sees them", async () => {
    rec.clear();
    await get("/films?expand=language,cast,inventory&count=exact&per_page=5");
    expect(rec.statements).toHaveLength(2);
    const [rows, count] = rec.statements;
    // "resc_page" is the page itself, a common table expression the expansions join (decision 1340).
    expect(new Set(tablesRead(rows))).toEqual(new Set(["film", "resc_page", "language", "film_actor", "inventory"]));
    expect(rows!.text).toMatch(/^WITH "resc_page" AS \(/);
    expect(tablesRead(count)).toEqual(["film"]);
    rec.clear();
    await get("/customers/1?expand=store,rentals");
    expect(rec.statements).toHaveLength(1);
    expect(new Set(tablesRead(rec.statements[0]))).toEqual(new Set(["customer", "store", "rental"]));
  });

  it("count=exact is the number of base rows, whatever the children", async () => {
    expect((await get<Row>("/films?expand=cast,inventory,categories&count=exact&per_page=1")).total).toBe(1000);
    const [{ n }] = await sql("SELECT count(*) AS n FROM language");
    expect((await get<Row>("/languages?expand=films&count=exact")).total).toBe(Number(n));
    expect((await get<Row>("/film_actors?expand=actor,film&count=exact&film_id=eq.1")).total).toBe(
      Number((await sql("SELECT count(*) AS n FROM film_actor WHERE film_id = 1"))[0].n),
    );
  });

  it("expansion combines with filters, sort and cursor paging", async () => {
    const first = await get<{ items: Row[]; next_cursor: string }>(
      "/films?rating=eq.G&expand=cast&sort=-length&per_page=7",
    );
    const next = await get<{ items: (Row & { cast: Inverse })[] }>(
      `/films?rating=eq.G&expand=cast&sort=-length&per_page=7&cursor=${first.next_cursor}`,
    );
    const ids = await sql(
      "SELECT film_id::text AS id FROM film WHERE rating = 'G' ORDER BY length DESC NULLS LAST, film_id DESC OFFSET 7 LIMIT 7",
    );
    expect(next.items.map((f) => String(f.film_id))).toEqual(ids.map((r) => r.id));
    const cast = await childrenBy("film_id", "actor_id::text", "film_actor", "actor_id");
    for (const f of next.items) expectChildren(f.cast, cast.get(String(f.film_id)), 20, (r) => String(r.actor_id));
  });
});

describe("refusals", () => {
  it("a relation that is not expandable: 400 listing the expandable ones, identical on list and read", async () => {
    const list = await client.get("/films?expand=actors");
    const read = await client.get("/films/1?expand=actors");
    expect(list.status).toBe(400);
    expect(read.status).toBe(400);
    expect(read.body).toEqual(list.body);
    expect(list.body).toEqual({
      type: "/problems/invalid-query",
      title: "Bad Request",
      status: 400,
      detail: "actors is not an expandable relation",
      errors: [
        {
          location: "query.expand",
          detail: "actors is not an expandable relation",
          value: "actors",
          allowed: ["language", "original_language", "cast", "categories", "inventory"],
        },
      ],
    });
  });

  it("a column name, another resource's relation, an empty name: each refused, identically on list and read", async () => {
    for (const expand of ["language_id", "film_roles", "language,,cast", "language.films", "nope,alsonope"]) {
      const list = await client.get(`/films?expand=${expand}`);
      const read = await client.get(`/films/1?expand=${expand}`);
      expect(list.status, expand).toBe(400);
      expect(read.body, expand).toEqual(list.body);
      for (const e of list.body.errors) {
        expect(e.location).toBe("query.expand");
        expect(e.allowed).toEqual(["language", "original_language", "cast", "categories", "inventory"]);
      }
    }
    expect((await client.get("/films?expand=nope,alsonope")).body.errors).toHaveLength(2);
  });
});
