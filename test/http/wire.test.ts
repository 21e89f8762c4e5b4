/**
 * What new users tripped on at the wire (docs/http.md), each against a
 * real database and, where the socket matters, a real server:
 * query parameters on writes, 413 and keep-alive, dates written back in
 * the form read, non-JSON bodies, deleting a referenced row, timestamp
 * fractions as docs/http.md shows them, and repeated list parameters as
 * openapi-fetch sends them.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { serve, type ServerType } from "@hono/node-server";
import createClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevApp } from "../../cli/dev/app.js";
import { createTestDatabase } from "../support/db.js";
import { compileText, sendTo } from "../support/service.js";

const SCHEMA = `
table authors {
  id   bigint @primary_key @default(identity) @sortable
  name text   @sortable @filterable
  resource "/authors" { ops = [crud, list] }
}

table posts {
  id        bigint      @primary_key @default(identity) @sortable
  author_id bigint      @ref(author, authors, expandable) @filterable @inverse(posts)
  title     text        @sortable @filterable
  length    integer     @sortable
  published date?       @filterable
  edited_at timestamptz? @sortable
  resource "/posts" { ops = [crud, list] }
}

/// Not exposed: a delete it blocks must not name it.
table audit_marks {
  id        bigint @primary_key @default(identity)
  author_id bigint @ref(marked, authors)
}
`;

const db = await createTestDatabase("wire");
const { service, ddl } = compileText(SCHEMA);
const { app, mounted } = createDevApp(service, { db: db.executor, openapi: false });
let server: ServerType;
let base = "";

beforeAll(async () => {
  await db.executor.script(ddl);
  await db.executor.script(`
    INSERT INTO authors (name) VALUES ('Ada'), ('Brian'), ('Cleo');
    INSERT INTO posts (author_id, title, length, published, edited_at) VALUES
      (1, 'B', 10, '2022-02-14', '2022-05-24 22:53:30+00'),
      (1, 'A', 10, NULL, '2022-05-24 22:53:30.69369+00'),
      (2, 'C', 5, NULL, NULL);
    INSERT INTO audit_marks (author_id) VALUES (3);
  `);
  server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await db.drop();
});

const send = <T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => sendTo<T>(app, method, path, body, headers);

describe("the wire", () => {
  it("mounts", () => expect(mounted.ok).toBe(true));

  it("refuses any query parameter on create, update and delete, and writes nothing", async () => {
    const before = await db.executor.query({ text: "SELECT count(*)::text AS n FROM posts", values: [] });
    for (const [method, path, body] of [
      ["POST", "/posts?exapnd=author", { author_id: 1, title: "x", length: 1 }],
      ["PATCH", "/posts/1?sort=title", { title: "changed" }],
      ["DELETE", "/posts/3?exapnd=a", undefined],
    ] as const) {
      const r = await send<{ type: string; errors: { location: string; allowed: string[] }[] }>(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.body.type).toBe("/problems/invalid-query");
      expect(r.body.errors[0].location).toMatch(/^query\./);
      // A create takes on_conflict alone, for an upsert (docs/decisions/1332-upsert.md).
      expect(r.body.errors[0].allowed).toEqual(method === "POST" ? ["on_conflict"] : []);
    }
    const after = await db.executor.query({ text: "SELECT count(*)::text AS n FROM posts", values: [] });
    expect(after.rows).toEqual(before.rows);
    expect((await send("GET", "/posts/1")).body.title).toBe("B");
  });

  it("answers 415 to a write whose body is not declared JSON", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const r = await send<{ type: string; errors: { location: string }[] }>(
        "POST",
        "/authors",
        JSON.stringify({ name: "T" }),
        {
          "content-type": type,
        },
      );
      expect(r.status, type).toBe(415);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.body.errors[0].location).toBe("header.content-type");
    }
    const ok = await send(
      "PATCH",
      "/authors/2",
      { name: "Brian" },
      { "content-type": "application/merge-patch+json; charset=utf-8" },
    );
    expect(ok.status).toBe(200);
  });

  it("takes a date back in the form a read gives it", async () => {
    const read = await send<{ published: string }>("GET", "/posts/1");
    expect(read.body.published).toBe("2022-02-14T00:00:00Z");
    const back = await send("PATCH", "/posts/1", { published: read.body.published });
    expect(back.status, back.text).toBe(200);
    expect((await send("GET", "/posts?published=eq.2022-02-14T00:00:00Z")).body.items).toHaveLength(1);
    const noon = await send<{ errors: { location: string; detail: string }[] }>("PATCH", "/posts/1", {
      published: "2022-02-14T12:00:00Z",
    });
    expect(noon.status).toBe(400);
    expect(noon.body.errors[0]).toMatchObject({ location: "body.published" });
    expect(noon.body.errors[0].detail).toMatch(/a date has no time of day/);
  });

  it("answers 409 at path.id when a delete is refused by a reference, naming the referencing resource when exposed", async () => {
    const exposed = await send<{ type: string; detail: string; errors: { location: string; value: string }[] }>(
      "DELETE",
      "/authors/1",
    );
    expect(exposed.status).toBe(409);
    expect(exposed.body.type).toBe("/problems/still-referenced");
    expect(exposed.body.detail).toContain("/posts");
    expect(exposed.body.errors).toEqual([
      { location: "path.id", detail: "still referred to by rows of /posts", value: "1" },
    ]);

    const hidden = await send<{ detail: string }>("DELETE", "/authors/3");
    expect(hidden.status).toBe(409);
    expect(hidden.text).not.toContain("audit_marks");
    expect(hidden.body.detail).toContain("other rows");
  });

  it("writes timestamps as docs/http.md shows them", async () => {
    const doc = await readFile("docs/http.md", "utf8");
    const row = doc.split("\n").find((l) => l.startsWith("| `timestamptz` |"))!;
    const examples = [...row.matchAll(/`"([^"]+)"`/g)].map((m) => m[1]);
    expect(examples).toEqual(["2022-05-24T22:53:30Z", "2022-05-24T22:53:30.69369Z"]);
    const page = await send<{ items: { edited_at: string | null }[] }>("GET", "/posts?sort=id&select=edited_at");
    expect(page.body.items.map((i) => i.edited_at)).toEqual([...examples, null]);
  });

  it("joins repeated sort and select, as openapi-fetch sends arrays", async () => {
    const client = createClient<{
      "/posts": {
        get: {
          parameters: { query?: { sort?: string[]; select?: string[] } };
          responses: { 200: { content: { "application/json": { items: Record<string, unknown>[] } } } };
        };
      };
    }>({ baseUrl: base });
    const { data, response } = await client.GET("/posts", {
      params: { query: { sort: ["-length", "title"], select: ["id", "title"] } },
    });
    expect(response.url).toContain("sort=-length&sort=title");
    expect(response.status).toBe(200);
    expect(data!.items).toEqual([
      { id: 2, title: "A" },
      { id: 1, title: "B" },
      { id: 3, title: "C" },
    ]);
  });
});

describe("a body over the limit", () => {
  it("answers 413 and closes the connection, and the next request on the same agent succeeds", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const request = (method: string, path: string, body?: string): Promise<{ status: number; connection?: string }> =>
      new Promise((resolve, reject) => {
        const req = http.request(
          base + path,
          {
            method,
            agent,
            headers: body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {},
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
          },
        );
        req.on("error", reject);
        if (body) req.write(body);
        req.end();
      });
    try {
      const big = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) });
      const refused = await request("POST", "/authors", big).catch((e: Error) => ({
        status: 0,
        connection: e.message,
      }));
      expect(refused.status).toBe(413);
      expect(refused.connection).toBe("close");
      const next = await request("GET", "/authors/2");
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});

describe("write bodies on the socket", () => {
  // Read from Node's request by the body-limit middleware (docs/decisions/1345-body-read-from-node.md), then by
  // the idempotency middleware and the handler from Hono's body cache.
  const post = (body: string, key: string) =>
    fetch(`${base}/authors`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body,
    });

  it("serves an Idempotency-Key retry from the stored answer and refuses the key with another body", async () => {
    const first = await post(JSON.stringify({ name: "Zoë" }), "wire-body-1");
    expect(first.status).toBe(201);
    const text = await first.text();
    expect(JSON.parse(text)).toMatchObject({ name: "Zoë" });
    const again = await post(JSON.stringify({ name: "Zoë" }), "wire-body-1");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(text);
    const other = await post(JSON.stringify({ name: "Other" }), "wire-body-1");
    expect(other.status).toBe(422);
  });
});

describe("If-None-Match on the socket", () => {
  /** A GET with raw header lines, so one header can be sent twice (fetch would join it first). */
  const getWith = (path: string, headers: string[]): Promise<{ status: number; etag?: string }> =>
    new Promise((resolve, reject) => {
      const req = http.request(base + path, { method: "GET" }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, etag: res.headers.etag }));
      });
      for (let i = 0; i < headers.length; i += 2) req.appendHeader(headers[i]!, headers[i + 1]!);
      req.on("error", reject);
      req.end();
    });

  it("answers 304 to a current tag, also when it comes in the second of two header lines", async () => {
    // Read from Node's parsed headers under node-server (decision 1341), which join repeated lines as
    // Headers.get does.
    const first = await getWith("/authors/2", []);
    expect(first.status).toBe(200);
    const etag = first.etag!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await getWith("/authors/2", ["If-None-Match", etag])).status).toBe(304);
    expect((await getWith("/authors/2", ["If-None-Match", '"stale"', "If-None-Match", etag])).status).toBe(304);
    expect((await getWith("/authors/2", ["If-None-Match", '"stale"'])).status).toBe(200);
  });
});
