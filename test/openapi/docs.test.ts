/**
 * Serving the description: `mountDocs` (the JSON document, the Swagger UI
 * page and its assets, all from the service itself), the default dev
 * server, and the document the generated module carries.
 */
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { emitHono, emitOpenApi, openApiDocument, writeGenerated } from "../../compiler/index.js";
import { createDevApp } from "../../cli/dev/app.js";
import { mountDocs, type OpenApiData } from "../../runtime/http/docs.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { compileFile } from "../support/service.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const tracker = await compileFile(path.join(ROOT, "spec.resource"));
const doc = emitOpenApi(tracker.schema);

/** An executor that must not be reached: these tests touch no resource route. */
const noDb: Executor = {
  query: () => Promise.reject(new Error("no database in this test")),
  transaction: () => Promise.reject(new Error("no database in this test")),
  script: () => Promise.reject(new Error("no database in this test")),
  close: () => Promise.resolve(),
};

/** `src` and `href` values of the page. */
function references(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
}

describe("mountDocs", () => {
  const app = new Hono();
  const mounted = mountDocs(app, doc);

  it("serves the document as JSON at /openapi.json", async () => {
    expect(mounted).toEqual({ ok: true });
    const res = await app.request("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it("serves a page at /docs whose every asset the service serves itself", async () => {
    const res = await app.request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain("<title>Task Tracker — API documentation</title>");
    expect(html).not.toMatch(/https?:\/\//);
    const refs = references(html);
    expect(refs).toEqual([
      "/docs/swagger-ui.css",
      "/docs/favicon-32x32.png",
      "/docs/swagger-ui-bundle.js",
      "/docs/init.js",
    ]);
    const types: Record<string, RegExp> = { css: /^text\/css/, png: /^image\/png/, js: /^text\/javascript/ };
    for (const ref of refs) {
      const a = await app.request(ref);
      expect(a.status, ref).toBe(200);
      expect(a.headers.get("content-type"), ref).toMatch(types[ref.split(".").pop()!]);
      expect((await a.arrayBuffer()).byteLength, ref).toBeGreaterThan(100);
    }
    const bundle = await (await app.request("/docs/swagger-ui-bundle.js")).text();
    expect(bundle).toContain("SwaggerUIBundle");
  });

  it("starts Swagger UI on the served document, without the online validator", async () => {
    const init = await (await app.request("/docs/init.js")).text();
    expect(init).toContain('"url":"/openapi.json"');
    expect(init).toContain('"validatorUrl":null');
    expect(init).not.toMatch(/https?:\/\//);
  });

  it("serves nothing else of the package", async () => {
    for (const p of [
      "/docs/package.json",
      "/docs/index.html",
      "/docs/..%2Fpackage.json",
      "/docs/swagger-ui.js",
      "/docs/x/y",
    ]) {
      expect((await app.request(p)).status, p).toBe(404);
    }
  });

  it("escapes the title in the page", async () => {
    const a = new Hono();
    const data: OpenApiData = { openapi: "3.1.0", info: { title: "<b>&", version: "1" }, paths: {} };
    mountDocs(a, data);
    expect(await (await a.request("/docs")).text()).toContain("<title>&#60;b&#62;&#38; — API documentation</title>");
  });

  it("follows a base path and names it as the document's server", async () => {
    const a = new Hono();
    expect(mountDocs(a, doc, { basePath: "/api/" })).toEqual({ ok: true });
    const served = (await (await a.request("/api/openapi.json")).json()) as OpenApiData;
    expect(served.servers).toEqual([{ url: "/api" }]);
    // The document itself is left as compiled: its own server is this origin.
    expect(doc.servers).toEqual([{ url: "/", description: "The server that serves this document." }]);
    const html = await (await a.request("/api/docs")).text();
    expect(references(html)).toContain("/api/docs/swagger-ui-bundle.js");
    expect(await (await a.request("/api/docs/init.js")).text()).toContain('"url":"/api/openapi.json"');
    expect((await a.request("/api/docs/swagger-ui.css")).status).toBe(200);
    expect((await a.request("/docs")).status).toBe(404);
  });

  it("serves the title and version the application chooses (spec: Versioning)", async () => {
    const a = new Hono();
    mountDocs(a, doc, { title: "Tracker API", version: "2026.5" });
    const served = (await (await a.request("/openapi.json")).json()) as OpenApiData;
    expect(served.info).toEqual({ ...doc.info, title: "Tracker API", version: "2026.5" });
    expect(doc.info.title).toBe("Task Tracker");
    expect(await (await a.request("/docs")).text()).toContain("<title>Tracker API — API documentation</title>");
  });

  it("takes other paths", async () => {
    const a = new Hono();
    mountDocs(a, doc, { documentPath: "spec.json", pagePath: "/reference/" });
    expect((await a.request("/spec.json")).status).toBe(200);
    expect(references(await (await a.request("/reference")).text())).toContain("/reference/init.js");
    expect(await (await a.request("/reference/init.js")).text()).toContain('"url":"/spec.json"');
  });

  it("returns the resource paths the docs would collide with, and mounts nothing then", async () => {
    const a = new Hono();
    const clashing: OpenApiData = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: { "/docs": {}, "/docs/{id}": {}, "/films": {} },
    };
    const r = mountDocs(a, clashing);
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual(["/docs", "/docs/{id}"]);
    expect((await a.request("/openapi.json")).status).toBe(404);
    const b = new Hono();
    expect(mountDocs(b, clashing, { pagePath: "/reference" })).toEqual({ ok: true });
  });
});

describe("mountDocs with a function", () => {
  it("builds the document at the first request for it, once", async () => {
    const a = new Hono();
    let builds = 0;
    expect(
      mountDocs(
        a,
        () => {
          builds++;
          return doc;
        },
        { title: "Later" },
      ),
    ).toEqual({ ok: true });
    expect(builds).toBe(0);
    expect(await (await a.request("/docs")).text()).toContain("<title>Later — API documentation</title>");
    expect(await (await a.request("/openapi.json")).json()).toEqual({
      ...JSON.parse(JSON.stringify(doc)),
      info: { ...doc.info, title: "Later" },
    });
    expect(builds).toBe(1);
  });

  it("checks collisions against the routes already registered, building nothing", () => {
    const a = new Hono();
    a.use(async (_c, next) => next());
    a.get("/docs/:id", (c) => c.text("a row"));
    a.get("/films", (c) => c.text("films"));
    const r = mountDocs(a, () => {
      throw new Error("must not be built");
    });
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual(["/docs/:id"]);
    const b = new Hono();
    b.get("/api/openapi.json", (c) => c.text("mine"));
    const rb = mountDocs(b, () => doc, { basePath: "/api" });
    expect(rb.ok ? [] : rb.errors.map((e) => e.path)).toEqual(["/api/openapi.json"]);
  });
});

describe("the default dev server", () => {
  it("serves the description computed from the descriptor", async () => {
    const { app, docs } = createDevApp(tracker.service, { db: noDb });
    expect(docs).toEqual({ ok: true });
    const served = await (await app.request("/openapi.json")).json();
    expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument(tracker.service))));
    // The descriptor carries no api-block comment; everything else is what `resc openapi` prints.
    const { title, version } = doc.info;
    expect(served).toEqual({ ...JSON.parse(JSON.stringify(doc)), info: { title, version } });
    expect((await app.request("/docs")).status).toBe(200);
  });

  it("serves the document it is given, or none", async () => {
    const given = createDevApp(tracker.service, { db: noDb, openapi: doc });
    expect(await (await given.app.request("/openapi.json")).json()).toEqual(JSON.parse(JSON.stringify(doc)));
    const none = createDevApp(tracker.service, { db: noDb, openapi: false });
    expect((await none.app.request("/openapi.json")).status).toBe(404);
    expect((await none.app.request("/docs")).status).toBe(404);
  });
});

describe("the generated module", () => {
  // Inside the repository so that `hono` resolves from node_modules.
  const dir = mkdtempSync(path.join(ROOT, "test", ".generated-openapi-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("exports the document resc openapi prints", async () => {
    const files = await emitHono(tracker.schema);
    expect(files.map((f) => f.path)).toContain("tracker/openapi.ts");
    await writeGenerated(files, dir);
    const mod = (await import(pathToFileURL(path.join(dir, "tracker/openapi.ts")).href)) as { openapi: OpenApiData };
    expect(mod.openapi).toEqual(JSON.parse(JSON.stringify(doc)));
    const app = new Hono();
    expect(mountDocs(app, mod.openapi)).toEqual({ ok: true });
    expect((await app.request("/docs")).status).toBe(200);
  });
});
