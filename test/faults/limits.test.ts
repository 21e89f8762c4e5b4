/**
 * What one request can cost (spec: Limits, Pagination,
 * Expansion; docs/decisions/0002-default-limits.md): the body size limit,
 * every ceiling of a resource that lowers them all
 * (`fixtures/limits.resource`: pages of 4 up to 10, 3 filters, 2 sort
 * terms, offsets up to 50, inverse expansion capped at 3), the package
 * limits on list values, value bytes and group nesting, and JSON nested
 * deeper than any parser's stack. No request may ask for an unbounded page
 * or an unbounded expansion, and none may crash the handler.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LIST_VALUES, MAX_VALUE_BYTES } from "../../runtime/descriptor.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileFile } from "../support/service.js";
import { rawClient, type RawAnswer } from "../fuzz/support/http.js";

let db: TestDatabase;
let service: ServiceDescriptor;
let client: ReturnType<typeof rawClient>;

beforeAll(async () => {
  const compiled = await compileFile("test/faults/fixtures/limits.resource");
  service = compiled.service;
  db = await createTestDatabase("limits");
  await db.executor.script(
    compiled.ddl +
      "\nINSERT INTO boxes (label) VALUES ('full'), ('empty');" +
      "\nINSERT INTO notes (box_id, title, rank, tags, attrs) SELECT 1, 'note ' || i, i, ARRAY['t' || (i % 3)], jsonb_build_object('i', i) FROM generate_series(1, 30) i;",
  );
  client = rawClient(service, db.executor);
});
afterAll(() => db?.drop());

const get = (path: string): Promise<RawAnswer> => client.send({ method: "GET", path });

interface Page {
  items: Record<string, unknown>[];
  page?: number;
  per_page: number;
  has_more: boolean;
  total?: number;
}

/** A 200 list page; fails with the answer's text otherwise. */
async function page(path: string): Promise<Page> {
  const a = await get(path);
  expect(a.status, a.text).toBe(200);
  return a.json as Page;
}

/** A 400 problem document; returns its first problem. */
async function refused(path: string, location?: string): Promise<{ location: string; detail: string }> {
  const a = await get(path);
  expect(a.status, `${path.slice(0, 120)}: ${a.text.slice(0, 300)}`).toBe(400);
  expect(a.headers.get("content-type")).toContain("application/problem+json");
  const errors = (a.json as { errors: { location: string; detail: string }[] }).errors;
  if (location) expect(errors.map((e) => e.location)).toContain(location);
  return errors[0];
}

describe("page size: never unbounded", () => {
  it("takes DefaultPageSize when per_page is absent", async () => {
    const p = await page("/notes");
    expect(p.per_page).toBe(4);
    expect(p.items).toHaveLength(4);
    expect(p.has_more).toBe(true);
  });

  it("reduces any larger per_page to MaxPageSize, however large", async () => {
    for (const n of ["10", "11", "1000", "2147483648", "99999999999999999999999999999"]) {
      const p = await page(`/notes?per_page=${n}`);
      expect(p.per_page, n).toBe(10);
      expect(p.items, n).toHaveLength(10);
    }
  });

  it("refuses per_page that is zero, negative, fractional, exponential, empty or not a number", async () => {
    for (const n of ["0", "-1", "-0", "1.5", "1e3", "", "abc", "0x10", "+5", " 5", "NaN", "Infinity", "５"]) {
      await refused(`/notes?per_page=${encodeURIComponent(n)}`, "query.per_page");
    }
    await refused("/notes?per_page=5&per_page=6", "query.per_page");
  });

  it("count=exact adds the total but does not widen the page", async () => {
    const p = await page("/notes?count=exact&per_page=100000");
    expect(p.items).toHaveLength(10);
    expect(p.total).toBe(30);
    const filtered = await page("/notes?count=exact&rank=gt.25");
    expect(filtered.total).toBe(5);
    expect(filtered.items).toHaveLength(4);
    await refused("/notes?count=all", "query.count");
  });

  it("the package ceiling of 200 holds on a resource that declares none", async () => {
    await db.executor.script("INSERT INTO boxes (label) SELECT 'b' || i FROM generate_series(1, 250) i");
    try {
      const p = await page("/boxes?per_page=100000");
      expect(p.per_page).toBe(200);
      expect(p.items).toHaveLength(200);
      expect((await page("/boxes")).items).toHaveLength(25);
    } finally {
      await db.executor.script("DELETE FROM boxes WHERE id > 2");
    }
  });
});

describe("offset depth", () => {
  it("pages down to MaxOffset and refuses one row deeper, pointing at cursor", async () => {
    expect((await page("/notes?offset=50")).items).toEqual([]);
    expect((await page("/notes?page=6&per_page=10")).items).toEqual([]);
    const byOffset = await refused("/notes?offset=51", "query.offset");
    expect(byOffset.detail).toContain("cursor");
    const byPage = await refused("/notes?page=7&per_page=10", "query.page");
    expect(byPage.detail).toContain("cursor");
    await refused("/notes?page=99999999999999999999999", "query.page");
    await refused("/notes?offset=99999999999999999999999", "query.offset");
  });

  it("refuses a negative or non-integer offset or page, and page with offset", async () => {
    for (const v of ["-1", "1.5", "", "x"]) await refused(`/notes?offset=${v}`, "query.offset");
    for (const v of ["0", "-1", "1.5", ""]) await refused(`/notes?page=${v}`, "query.page");
    await refused("/notes?page=2&offset=3");
  });
});

describe("filters, sort terms, list values, value bytes, nesting", () => {
  const conds = (n: number): string => Array.from({ length: n }, (_, i) => `rank=neq.${i + 100}`).join("&");

  it("MaxFilters counts every leaf: URL, groups and the filter tree together", async () => {
    expect((await page(`/notes?${conds(3)}`)).items).toHaveLength(4);
    await refused(`/notes?${conds(4)}`, "query.rank");
    await refused("/notes?or=(rank.eq.1,rank.eq.2,rank.eq.3,rank.eq.4)", "query.or");
    const tree = (n: number) =>
      encodeURIComponent(
        JSON.stringify({
          op: "or",
          children: Array.from({ length: n }, (_, i) => ({ field: "rank", op: "eq", value: i + 1 })),
        }),
      );
    expect((await page(`/notes?filter=${tree(3)}`)).items).toHaveLength(3);
    await refused(`/notes?filter=${tree(4)}`, "query.filter");
    await refused(`/notes?${conds(2)}&filter=${tree(2)}`, "query.filter");
  });

  it("MaxSortTerms", async () => {
    expect((await page("/notes?sort=-rank,title")).items[0].rank).toBe(30);
    await refused("/notes?sort=-rank,title,box_id", "query.sort");
  });

  it(`at most ${MAX_LIST_VALUES} values in one list, on every list operator`, async () => {
    const list = (n: number): string => Array.from({ length: n }, (_, i) => i).join(",");
    expect((await page(`/notes?rank=in.${list(MAX_LIST_VALUES)}&per_page=10`)).items).toHaveLength(10);
    await refused(`/notes?rank=in.${list(MAX_LIST_VALUES + 1)}`, "query.rank");
    await refused(`/notes?rank=nin.${list(MAX_LIST_VALUES + 1)}`, "query.rank");
    await refused(`/notes?tags=hasany.${list(MAX_LIST_VALUES + 1)}`, "query.tags");
    await refused(`/notes?or=(rank.in.(${list(MAX_LIST_VALUES + 1)}))`, "query.or");
    await refused("/notes?rank=between.1,2,3", "query.rank");
  });

  it(`at most ${MAX_VALUE_BYTES} UTF-8 bytes per value: filters, search, documents and ids`, async () => {
    expect((await page(`/notes?title=eq.${"a".repeat(MAX_VALUE_BYTES)}`)).items).toEqual([]);
    await refused(`/notes?title=eq.${"a".repeat(MAX_VALUE_BYTES + 1)}`, "query.title");
    await refused(`/notes?title=eq.${encodeURIComponent("é".repeat(MAX_VALUE_BYTES / 2 + 1))}`, "query.title");
    await refused(`/notes?search=${"a".repeat(MAX_VALUE_BYTES + 1)}`, "query.search");
    await refused(
      `/notes?attrs=hasdoc.${encodeURIComponent(JSON.stringify({ k: "x".repeat(MAX_VALUE_BYTES) }))}`,
      "query.attrs",
    );
    await refused(`/notes/${"1".repeat(MAX_VALUE_BYTES + 1)}`, "path.id");
  });

  it("groups nest three levels deep, not four, in the URL and in the filter tree", async () => {
    expect((await page("/notes?or=(and(or(rank.eq.1),rank.gt.0))")).items).toHaveLength(1);
    await refused("/notes?or=(and(or(not(rank.eq.1))))", "query.or");
    await refused("/notes?not=(and(or(and(rank.eq.1))))", "query.not");
    const deep = (d: number): unknown =>
      d === 0 ? { field: "rank", op: "eq", value: 1 } : { op: "and", children: [deep(d - 1)] };
    expect((await page(`/notes?filter=${encodeURIComponent(JSON.stringify(deep(3)))}`)).items).toHaveLength(1);
    await refused(`/notes?filter=${encodeURIComponent(JSON.stringify(deep(4)))}`, "query.filter");
  });
});

describe("expansion is bounded", () => {
  it("caps an inverse collection at its declared limit, on lists and reads, and says so", async () => {
    const list = await page("/boxes?expand=notes");
    const full = list.items.find((b) => b.id === 1) as { notes: { items: unknown[]; has_more: boolean } };
    expect(full.notes.items).toHaveLength(3);
    expect(full.notes.has_more).toBe(true);
    const one = await get("/boxes/1?expand=notes");
    expect((one.json as { notes: { items: unknown[] } }).notes.items).toHaveLength(3);
    const empty = list.items.find((b) => b.id === 2) as { notes: { items: unknown[]; has_more: boolean } };
    expect(empty.notes).toEqual({ items: [], has_more: false });
  });

  it("is one level deep: a relation's own relations cannot be asked for", async () => {
    for (const e of ["notes.box", "notes(box)", "notes/box", "box"])
      await refused(`/boxes?expand=${encodeURIComponent(e)}`, "query.expand");
  });

  it("asking for the same relation many times costs no more than once", async () => {
    const many = Array.from({ length: 50 }, () => "expand=notes").join("&");
    const a = await get(`/boxes?${many}`);
    expect(a.status).toBeLessThan(500);
    if (a.status === 200)
      expect(((a.json as Page).items[0] as { notes: { items: unknown[] } }).notes.items).toHaveLength(3);
  });
});

describe("JSON nested deeper than a parser's stack", () => {
  const deepArray = (d: number): string => "[".repeat(d) + "]".repeat(d);
  const deepObject = (d: number): string => '{"a":'.repeat(d) + "1" + "}".repeat(d);

  it("is a 400 in a filter tree, never a crash", async () => {
    for (const doc of [
      deepArray(100_000),
      deepObject(100_000),
      `{"field":"title","op":"eq","value":${deepArray(100_000)}}`,
      `{"field":"rank","op":"in","value":${deepArray(100_000)}}`,
      `{"field":"attrs","op":"hasdoc","value":${deepArray(100_000)}}`,
      `{"field":"attrs","op":"hasdoc","value":${deepObject(5_000)}}`,
    ]) {
      await refused(`/notes?filter=${encodeURIComponent(doc)}`, "query.filter");
    }
  });

  it("is a 400 as a document filter value", async () => {
    for (const doc of [deepArray(100_000), deepObject(100_000)])
      await refused(`/notes?attrs=hasdoc.${encodeURIComponent(doc)}`, "query.attrs");
  });

  it("is a 400 in a body, in a plain field, an array field or a document field", async () => {
    for (const field of ["title", "tags", "attrs"]) {
      for (const value of [deepArray(100_000), deepObject(100_000), deepArray(3_000), deepObject(1_000)]) {
        const a = await client.send({
          method: "POST",
          path: "/notes",
          body: `{"box_id":1,"title":"t","rank":1,"${field}":${value}}`,
        });
        expect(a.status, `${field}: ${a.text.slice(0, 300)}`).toBe(400);
        expect(a.headers.get("content-type")).toContain("application/problem+json");
      }
    }
    expect(client.logged.splice(0).map(String)).toEqual([]);
  });

  it("a document nested 100 levels deep is still a document", async () => {
    const a = await client.send({
      method: "POST",
      path: "/notes",
      body: `{"box_id":2,"title":"deep","rank":1,"attrs":${deepArray(100)}}`,
    });
    expect(a.status, a.text.slice(0, 300)).toBe(201);
    const o = await client.send({
      method: "POST",
      path: "/notes",
      body: `{"box_id":2,"title":"deeper","rank":1,"attrs":${deepObject(100)}}`,
    });
    expect(o.status, o.text.slice(0, 300)).toBe(201);
    const found = await page(
      `/notes?filter=${encodeURIComponent(`{"field":"attrs","op":"hasdoc","value":${deepArray(100)}}`)}`,
    );
    expect(found.items.map((n) => n.title)).toEqual(["deep"]);
    await refused(
      `/notes?filter=${encodeURIComponent(`{"field":"attrs","op":"hasdoc","value":${deepArray(101)}}`)}`,
      "query.filter",
    );
    const over = await client.send({
      method: "POST",
      path: "/notes",
      body: `{"box_id":2,"title":"t","rank":1,"attrs":${deepObject(101)}}`,
    });
    expect(over.status).toBe(400);
    expect(over.text).toContain("nested at most 100 levels deep");
  });
});

describe("request body size", () => {
  const padded = (bytes: number): string => {
    const core = JSON.stringify({ label: "x" });
    return core.slice(0, -1) + " ".repeat(bytes - core.length) + "}";
  };

  it("accepts a body of exactly 1 MiB and answers 413 one byte above it, on create and update", async () => {
    const ok = await client.send({ method: "POST", path: "/boxes", body: padded(1024 * 1024) });
    expect(ok.status, ok.text.slice(0, 200)).toBe(201);
    for (const [method, path] of [
      ["POST", "/boxes"],
      ["PATCH", "/boxes/1"],
    ]) {
      const a = await client.send({ method, path, body: padded(1024 * 1024 + 1) });
      expect(a.status).toBe(413);
      expect(a.headers.get("content-type")).toContain("application/problem+json");
      expect(a.json).toMatchObject({ status: 413, title: "Content Too Large", errors: [{ location: "body" }] });
    }
  });

  it("honours a smaller maxBodyBytes, also for a body streamed without a length", async () => {
    const small = rawClient(service, db.executor, { maxBodyBytes: 100 });
    expect((await small.send({ method: "POST", path: "/boxes", body: padded(100) })).status).toBe(201);
    expect((await small.send({ method: "POST", path: "/boxes", body: padded(101) })).status).toBe(413);
    const chunks = [padded(80).slice(0, 60), padded(80).slice(60), " ".repeat(200)];
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = chunks.shift();
        if (next === undefined) c.close();
        else c.enqueue(new TextEncoder().encode(next));
      },
    });
    const res = await small.app.request("/boxes", {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});
