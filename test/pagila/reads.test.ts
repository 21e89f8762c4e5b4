/**
 * The Pagila service answers real list and read requests exactly as
 * PostgreSQL answers the same question asked directly (docs/pagila-mapping.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupPagila, type PagilaContext } from "./setup.js";

let ctx: PagilaContext;
beforeAll(async () => {
  ctx = await setupPagila("pagila_reads");
});
afterAll(() => ctx?.drop());

/** Lists `path` and the keys SQL returns for the same question; both in order. */
async function compare(path: string, sql: string, key: string, values: (string | null)[] = []) {
  const r = await ctx.client.get(path);
  expect(r.status, r.text).toBe(200);
  const expected = (await ctx.db.executor.query({ text: sql, values })).rows.map((row) => Number(row.k));
  expect(r.body.items.map((i: Record<string, number>) => i[key])).toEqual(expected);
  return r;
}

describe("filters by column type", () => {
  it("enum eq, smallint between, sort by title", async () => {
    await compare(
      "/films?rating=eq.PG&length=between.60,120&sort=title&per_page=200",
      `select film_id::text k from film where rating = 'PG' and length between 60 and 120 order by title, film_id limit 200`,
      "film_id",
    );
  });
  it("bare value is equality, and a dotted value is not an operator", async () => {
    await compare("/films?rating=PG-13&per_page=50", `select film_id::text k from film where rating = 'PG-13' order by title, film_id limit 50`, "film_id");
    const r = await ctx.client.get("/actors?last_name=A.B");
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([]);
  });
  it("in with quoted items, nin", async () => {
    await compare("/films?rating=in.\"G\",PG&sort=-film_id&per_page=30", `select film_id::text k from film where rating in ('G','PG') order by film_id desc limit 30`, "film_id");
    await compare("/films?rating=nin.G,PG,R&sort=film_id&per_page=30", `select film_id::text k from film where rating not in ('G','PG','R') order by film_id limit 30`, "film_id");
  });
  it("numeric comparisons bind exactly", async () => {
    await compare("/films?rental_rate=eq.0.99&replacement_cost=lt.10.5&sort=film_id&per_page=100", `select film_id::text k from film where rental_rate = 0.99 and replacement_cost < 10.5 order by film_id limit 100`, "film_id");
  });
  it("domain over integer (release_year)", async () => {
    await compare("/films?release_year=gte.2020&sort=film_id&per_page=40", `select film_id::text k from film where release_year >= 2020 order by film_id limit 40`, "film_id");
  });
  it("text pattern operators", async () => {
    await compare("/films?title=ilike.%25LOVE%25&sort=film_id", `select film_id::text k from film where title ilike '%LOVE%' order by film_id limit 25`, "film_id");
    await compare("/films?title=like.A%25&sort=film_id", `select film_id::text k from film where title like 'A%' order by film_id limit 25`, "film_id");
    await compare("/films?title=contains.love&sort=film_id", `select film_id::text k from film where title ilike '%love%' order by film_id limit 25`, "film_id");
    await compare("/films?title=startswith.al&sort=film_id", `select film_id::text k from film where title ilike 'al%' order by film_id limit 25`, "film_id");
    await compare("/films?title=endswith.town&sort=film_id", `select film_id::text k from film where title ilike '%town' order by film_id limit 25`, "film_id");
  });
  it("array vocabulary", async () => {
    const base = "select film_id::text k from film where ";
    const tail = " order by film_id limit 50";
    await compare("/films?special_features=has.Trailers&sort=film_id&per_page=50", base + `special_features @> array['Trailers']` + tail, "film_id");
    await compare("/films?special_features=hasany.Trailers,Commentaries&sort=film_id&per_page=50", base + `special_features && array['Trailers','Commentaries']` + tail, "film_id");
    await compare("/films?special_features=hasall.Trailers,Commentaries&sort=film_id&per_page=50", base + `special_features @> array['Trailers','Commentaries']` + tail, "film_id");
    await compare("/films?special_features=nhas.Trailers&sort=film_id&per_page=50", base + `not (special_features @> array['Trailers'])` + tail, "film_id");
    await compare("/films?special_features=eq.Trailers,Commentaries&sort=film_id&per_page=50", base + `special_features = array['Trailers','Commentaries']` + tail, "film_id");
    await compare(
      '/films?special_features=hasany."Behind the Scenes",Trailers&sort=film_id&per_page=50',
      base + `special_features && array['Behind the Scenes','Trailers']` + tail,
      "film_id",
    );
  });
  it("null tests and three-valued negation", async () => {
    await compare("/rentals?return_date=isnull&sort=rental_id&per_page=200", `select rental_id::text k from rental where return_date is null order by rental_id limit 200`, "rental_id");
    const r = await ctx.client.get("/rentals?return_date=notnull&count=exact&per_page=1");
    const n = await ctx.db.executor.query({ text: "select count(*)::text n from rental where return_date is not null", values: [] });
    expect(r.body.total).toBe(Number(n.rows[0].n));
  });
  it("dates and timestamps", async () => {
    await compare("/customers?create_date=eq.2022-02-14&sort=customer_id&per_page=200", `select customer_id::text k from customer where create_date = '2022-02-14' order by customer_id limit 200`, "customer_id");
    await compare(
      "/rentals?rental_date=gte.2022-05-25T00:00:00Z&rental_date=lt.2022-05-26T00:00:00Z&sort=rental_date&per_page=200",
      `select rental_id::text k from rental where rental_date >= '2022-05-25T00:00:00Z' and rental_date < '2022-05-26T00:00:00Z' order by rental_date, rental_id limit 200`,
      "rental_id",
    );
  });
  it("booleans and integers", async () => {
    await compare("/customers?activebool=eq.false&sort=customer_id", `select customer_id::text k from customer where not activebool order by customer_id limit 25`, "customer_id");
    await compare("/customers?store_id=eq.1&active=eq.0&sort=customer_id", `select customer_id::text k from customer where store_id = 1 and active = 0 order by customer_id limit 25`, "customer_id");
  });
  it("a nonexistent parent is an empty page, not a 404", async () => {
    const r = await ctx.client.get("/rentals?customer_id=eq.999999");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ items: [], has_more: false });
  });
});

describe("groups and the JSON filter tree", () => {
  it("or, and, not", async () => {
    await compare(
      "/films?or=(rating.eq.G,length.gt.180)&sort=film_id&per_page=100",
      `select film_id::text k from film where rating = 'G' or length > 180 order by film_id limit 100`,
      "film_id",
    );
    await compare(
      "/films?not=(rating.eq.G,length.lt.100)&sort=film_id&per_page=100",
      `select film_id::text k from film where not (rating = 'G' and length < 100) order by film_id limit 100`,
      "film_id",
    );
    await compare(
      "/films?or=(and(rating.eq.G,length.lt.60),rating.eq.NC-17)&sort=film_id&per_page=100",
      `select film_id::text k from film where (rating = 'G' and length < 60) or rating = 'NC-17' order by film_id limit 100`,
      "film_id",
    );
  });
  it("?filter= JSON tree conjoins with URL filters", async () => {
    const tree = { op: "or", children: [{ field: "rating", op: "eq", value: "G" }, { field: "length", op: "gt", value: 180 }] };
    await compare(
      `/films?filter=${encodeURIComponent(JSON.stringify(tree))}&release_year=gte.2000&sort=film_id&per_page=100`,
      `select film_id::text k from film where (rating = 'G' or length > 180) and release_year >= 2000 order by film_id limit 100`,
      "film_id",
    );
  });
});

describe("sort, search, paging, count", () => {
  it("default sort applies with the key tiebreak", async () => {
    await compare("/actors?per_page=60", `select actor_id::text k from actor order by last_name, first_name, actor_id limit 60`, "actor_id");
    await compare("/rentals?per_page=50", `select rental_id::text k from rental order by rental_date desc, rental_id desc limit 50`, "rental_id");
  });
  it("declared nulls-last holds in both directions", async () => {
    const saved = await ctx.db.executor.query({ text: "select film_id::text id, length::text len from film where film_id in (1, 2, 3)", values: [] });
    await ctx.db.executor.query({ text: "update film set length = null where film_id in (1, 2, 3)", values: [] });
    try {
      await compare("/films?sort=-length&per_page=200&page=5", `select film_id::text k from film order by length desc nulls last, film_id desc limit 200 offset 800`, "film_id");
      await compare("/films?sort=length&per_page=200&page=5", `select film_id::text k from film order by length asc nulls last, film_id asc limit 200 offset 800`, "film_id");
    } finally {
      for (const row of saved.rows) {
        await ctx.db.executor.query({ text: "update film set length = $1::smallint where film_id = $2::int", values: [row.len, row.id] });
      }
    }
  });
  it("the composite key of payments is the tiebreak", async () => {
    await compare(
      "/payments?amount=gte.10&per_page=100",
      `select payment_id::text k from payment where amount >= 10 order by payment_date desc, payment_id desc limit 100`,
      "payment_id",
    );
  });
  it("search is an escaped ILIKE over the searchable columns", async () => {
    await compare(
      "/films?search=drama&sort=film_id&per_page=100",
      `select film_id::text k from film where title ilike '%drama%' or description ilike '%drama%' order by film_id limit 100`,
      "film_id",
    );
    const r = await ctx.client.get("/actors?search=%25");
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([]);
  });
  it("offset paging, has_more and count=exact", async () => {
    const r = await compare("/films?sort=film_id&page=3&per_page=10&count=exact", `select film_id::text k from film order by film_id limit 10 offset 20`, "film_id");
    expect(r.body).toMatchObject({ page: 3, per_page: 10, has_more: true, total: 1000 });
    const last = await ctx.client.get("/films?sort=film_id&page=100&per_page=10");
    expect(last.body).toMatchObject({ page: 100, has_more: false });
    expect(last.body.items).toHaveLength(10);
    const capped = await ctx.client.get("/films?per_page=5000");
    expect(capped.body.per_page).toBe(200);
    expect(capped.body.items).toHaveLength(200);
  });
  it("select projects and always keeps the key", async () => {
    const r = await ctx.client.get("/films?select=title&sort=film_id&per_page=2");
    expect(r.body.items).toEqual([
      { film_id: 1, title: "ACADEMY DINOSAUR" },
      { film_id: 2, title: "ACE GOLDFINGER" },
    ]);
  });
});

describe("reads and JSON forms", () => {
  it("a film reads as the database holds it", async () => {
    const r = await ctx.client.get("/films/1");
    expect(r.status).toBe(200);
    const row = (
      await ctx.db.executor.query({
        text: `select title, rental_rate::text rr, replacement_cost::text rc, rating::text rating, length::text len,
               extract(epoch from last_update)::text ep, array_to_json(special_features)::text sf from film where film_id = 1`,
        values: [],
      })
    ).rows[0];
    expect(r.body).toMatchObject({ film_id: 1, title: row.title, rental_rate: row.rr, replacement_cost: row.rc, rating: row.rating, length: Number(row.len) });
    expect(r.body.special_features).toEqual(JSON.parse(row.sf!));
    expect(r.body.last_update).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(new Date(r.body.last_update).getTime()).toBe(Math.floor(Number(row.ep) * 1000));
    expect(r.body).not.toHaveProperty("fulltext");
  });
  it("a date is RFC 3339 at UTC midnight", async () => {
    const r = await ctx.client.get("/customers/1");
    expect(r.body.create_date).toMatch(/^\d{4}-\d\d-\d\dT00:00:00(\.0+)?Z$/);
  });
  it("hidden columns never appear", async () => {
    const r = await ctx.client.get("/staff?per_page=3");
    expect(r.status).toBe(200);
    for (const s of r.body.items) {
      expect(s).not.toHaveProperty("password");
      expect(s).not.toHaveProperty("picture");
    }
    const f = await ctx.client.get("/staff?password=eq.x");
    expect(f.status).toBe(400);
    expect(f.text).not.toContain('"password"');
    expect(f.body.errors[0].allowed).not.toContain("password");
  });
  it("missing rows and unexposed operations", async () => {
    expect((await ctx.client.get("/films/999999")).status).toBe(404);
    expect((await ctx.client.get("/film_actors/1")).status).toBe(404);
    expect((await ctx.client.get("/film_actors/1/999999")).status).toBe(404);
    expect((await ctx.client.request("DELETE", "/customers/1")).status).toBe(404);
    expect((await ctx.client.request("POST", "/languages", { name: "Klingon" })).status).toBe(404);
  });
});

describe("a composite key's item route (docs/decisions/1376-composite-key-address.md)", () => {
  it("reads film_actor by /{actor_id}/{film_id}, with its forward expansions as a list shows them", async () => {
    const r = await ctx.client.get("/film_actors/1/1?expand=actor,film");
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ actor_id: 1, film_id: 1, actor: { actor_id: 1 }, film: { film_id: 1 } });
    const listed = await ctx.client.get("/film_actors?actor_id=eq.1&film_id=eq.1&expand=actor,film");
    expect(listed.body.items).toEqual([r.body]);
    const bad = await ctx.client.get("/film_actors/1/one");
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].location).toBe("path.film_id");
  });
});

describe("refusals list the allowed alternatives", () => {
  it("unsortable column", async () => {
    const r = await ctx.client.get("/films?sort=description");
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toContain("application/problem+json");
    expect(r.body.errors[0]).toMatchObject({ location: "query.sort" });
    expect(r.body.errors[0].allowed).toContain("title");
  });
  it("operator not valid for an array column", async () => {
    const r = await ctx.client.get("/films?special_features=gt.x");
    expect(r.status).toBe(400);
    expect(r.body.errors[0].allowed).toEqual(["eq", "has", "hasall", "hasany", "isnull", "ne", "neq", "nhas", "nhasall", "nhasany", "notnull"]);
  });
  it("a value outside the enum names the values", async () => {
    const r = await ctx.client.get("/films?rating=eq.XXX");
    expect(r.status).toBe(400);
    expect(r.body.errors[0].allowed).toEqual(["G", "PG", "PG-13", "R", "NC-17"]);
  });
  it("every problem of a request at once", async () => {
    const r = await ctx.client.get("/films?nope=1&sort=description&length=eq.long");
    expect(r.status).toBe(400);
    expect(r.body.errors.length).toBeGreaterThanOrEqual(3);
  });
});
