/**
 * Conditional requests (docs/decisions/1329-conditional-requests.md; RFC
 * 9110 §13): every item answer carries a strong ETag naming the row's
 * served version; GET with a matching If-None-Match is a 304; PATCH and
 * DELETE with If-Match write only while the row is at that version, checked
 * by the statement that writes, so of two writes sent with one tag exactly
 * one succeeds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { cmp } from "../../runtime/predicate.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, databaseWith, mounted, type Client } from "../hooks/support.js";
import { GADGETS } from "../writes/schema.js";

const SHELVES = `
table shelves {
  id    bigint @primary_key @default(identity)
  name  text
  resource "/shelves" { ops = [crud, list] }
}
table books {
  id       bigint @primary_key @default(identity)
  shelf_id bigint @ref(shelf, shelves) @filterable @inverse(books, expandable)
  title    text
  resource "/books" { ops = [crud, list] }
}
`;

const STRONG = /^"[0-9a-f]{32}"$/;

let db: TestDatabase;
let service: ServiceDescriptor;
let client: Client;

beforeAll(async () => {
  const c = compileText(GADGETS + SHELVES, "conditional.resource");
  service = c.service;
  db = await databaseWith("conditional", c.ddl);
  // Rows whose mood is busy are out of every request's scope.
  client = mounted(service, {
    db: db.executor,
    hooks: { beforeQuery: { gadgets: () => cmp("mood", "eq", "calm") } },
  });
});
afterAll(async () => {
  await db?.drop();
});

let serial = 0;
async function createGadget(name = "lamp"): Promise<{ id: number; etag: string }> {
  serial++;
  const r = await client.request("POST", "/gadgets", { sku: `sku-${serial}`, name, serial: `S${serial}` });
  expect(r.status).toBe(201);
  return { id: (r.body as { id: number }).id, etag: r.headers.get("etag")! };
}

describe("ETag on item answers", () => {
  it("a create, a read and an update of the same version carry the same strong tag", async () => {
    const g = await createGadget();
    expect(g.etag).toMatch(STRONG);
    const read = await client.get(`/gadgets/${g.id}`);
    expect(read.headers.get("etag")).toBe(g.etag);
    const changed = await client.request("PATCH", `/gadgets/${g.id}`, { name: "desk lamp" });
    expect(changed.status).toBe(200);
    const next = changed.headers.get("etag")!;
    expect(next).toMatch(STRONG);
    expect(next).not.toBe(g.etag);
    expect((await client.get(`/gadgets/${g.id}`)).headers.get("etag")).toBe(next);
  });

  it("a read's tag, computed by the server from the body it sends, is the tag writes compute in the database, beyond ASCII too (decision 1339)", async () => {
    const g = await createGadget("lampe à café ☕ 𝄞");
    const read = await client.get(`/gadgets/${g.id}`);
    expect(read.headers.get("etag")).toBe(g.etag);
    // The read's tag is one a write accepts: If-Match with it writes.
    const kept = await client.request("PATCH", `/gadgets/${g.id}`, { name: "é" }, { "if-match": g.etag });
    expect(kept.status).toBe(200);
    expect((await client.get(`/gadgets/${g.id}`)).headers.get("etag")).toBe(kept.headers.get("etag"));
  });

  it("a change to a hidden column leaves the served representation, and so the tag, as it was", async () => {
    const g = await createGadget();
    await db.executor.query({ text: `UPDATE gadgets SET secret = 'changed' WHERE id = $1`, values: [String(g.id)] });
    expect((await client.get(`/gadgets/${g.id}`)).headers.get("etag")).toBe(g.etag);
    await db.executor.query({ text: `UPDATE gadgets SET note = 'seen' WHERE id = $1`, values: [String(g.id)] });
    expect((await client.get(`/gadgets/${g.id}`)).headers.get("etag")).not.toBe(g.etag);
  });
});

describe("If-None-Match on a read", () => {
  it("answers 304 without a body while the copy is current, then 200 once the row changed", async () => {
    const g = await createGadget();
    const same = await client.request("GET", `/gadgets/${g.id}`, undefined, { "if-none-match": g.etag });
    expect(same.status).toBe(304);
    expect(same.text).toBe("");
    expect(same.headers.get("etag")).toBe(g.etag);
    // Weak comparison: the same tag marked weak, or among others, is still a match.
    const weak = await client.request("GET", `/gadgets/${g.id}`, undefined, { "if-none-match": `"x", W/${g.etag}` });
    expect(weak.status).toBe(304);
    await client.request("PATCH", `/gadgets/${g.id}`, { note: "moved" });
    const stale = await client.request("GET", `/gadgets/${g.id}`, undefined, { "if-none-match": g.etag });
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ id: g.id, note: "moved" });
  });

  it("tags an expanded read by its whole body, so a change to an expanded child is a new version", async () => {
    const shelf = (await client.request("POST", "/shelves", { name: "top" })).body as { id: number };
    const book = (await client.request("POST", "/books", { shelf_id: shelf.id, title: "Dune" })).body as {
      id: number;
    };
    const first = await client.get(`/shelves/${shelf.id}?expand=books`);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(
      (await client.request("GET", `/shelves/${shelf.id}?expand=books`, undefined, { "if-none-match": etag })).status,
    ).toBe(304);
    await client.request("PATCH", `/books/${book.id}`, { title: "Dune Messiah" });
    const after = await client.request("GET", `/shelves/${shelf.id}?expand=books`, undefined, {
      "if-none-match": etag,
    });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    // The shelf's own version did not change: its plain read is still current.
    const plain = (await client.get(`/shelves/${shelf.id}`)).headers.get("etag")!;
    expect(plain).toMatch(STRONG);
  });
});

describe("If-Match on a write", () => {
  it("PATCH with a stale tag is 412 and writes nothing; with the current tag it writes", async () => {
    const g = await createGadget("chair");
    const moved = await client.request("PATCH", `/gadgets/${g.id}`, { note: "first" });
    const refused = await client.request("PATCH", `/gadgets/${g.id}`, { name: "stool" }, { "if-match": g.etag });
    expect(refused.status).toBe(412);
    expect(refused.body).toMatchObject({
      type: "/problems/precondition-failed",
      status: 412,
      errors: [{ location: "header.if-match" }],
    });
    expect((await client.get(`/gadgets/${g.id}`)).body).toMatchObject({ name: "chair", note: "first" });
    const current = moved.headers.get("etag")!;
    const ok = await client.request("PATCH", `/gadgets/${g.id}`, { name: "stool" }, { "if-match": current });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ name: "stool" });
  });

  it("a weak or malformed tag never matches; * matches any current row", async () => {
    const g = await createGadget();
    expect(
      (await client.request("PATCH", `/gadgets/${g.id}`, { note: "a" }, { "if-match": `W/${g.etag}` })).status,
    ).toBe(412);
    expect((await client.request("PATCH", `/gadgets/${g.id}`, { note: "a" }, { "if-match": "nonsense" })).status).toBe(
      412,
    );
    expect((await client.request("PATCH", `/gadgets/${g.id}`, { note: "a" }, { "if-match": "*" })).status).toBe(200);
  });

  it("a row that is absent or out of scope is a 404 whatever the tag, never a 412", async () => {
    const g = await createGadget();
    expect((await client.request("PATCH", `/gadgets/999999`, { note: "x" }, { "if-match": g.etag })).status).toBe(404);
    await db.executor.query({ text: `UPDATE gadgets SET mood = 'busy' WHERE id = $1`, values: [String(g.id)] });
    const hidden = await client.request("PATCH", `/gadgets/${g.id}`, { note: "x" }, { "if-match": '"0"' });
    expect(hidden.status).toBe(404);
    expect((await client.request("DELETE", `/gadgets/${g.id}`, undefined, { "if-match": '"0"' })).status).toBe(404);
  });

  it("DELETE with a stale tag is 412 and the row stays; with the current tag it is deleted", async () => {
    const g = await createGadget();
    const moved = await client.request("PATCH", `/gadgets/${g.id}`, { note: "edited elsewhere" });
    expect((await client.request("DELETE", `/gadgets/${g.id}`, undefined, { "if-match": g.etag })).status).toBe(412);
    expect((await client.get(`/gadgets/${g.id}`)).status).toBe(200);
    const gone = await client.request("DELETE", `/gadgets/${g.id}`, undefined, {
      "if-match": moved.headers.get("etag")!,
    });
    expect(gone.status).toBe(204);
    expect((await client.get(`/gadgets/${g.id}`)).status).toBe(404);
  });

  it("of twenty concurrent PATCHes sent with one tag, exactly one succeeds and the rest are 412", async (t) => {
    // PGlite runs one statement at a time: there is no race to observe there.
    if (db.kind !== "pg") t.skip();
    const g = await createGadget();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.request("PATCH", `/gadgets/${g.id}`, { note: `writer ${i}` }, { "if-match": g.etag }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(19).fill(412)]);
    const winner = answers.find((a) => a.status === 200)!.body as { note: string };
    expect((await client.get(`/gadgets/${g.id}`)).body).toMatchObject({ note: winner.note });
  });
});
