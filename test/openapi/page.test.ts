/**
 * The documentation page really renders: a browser-like window (jsdom,
 * running the page's scripts) loads /docs from the dev server over a real
 * socket, and Swagger UI shows one block per operation of the document,
 * having fetched nothing from any other origin.
 */
import type { AddressInfo } from "node:net";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { JSDOM, VirtualConsole, requestInterceptor } from "jsdom";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevApp } from "../../cli/dev/app.js";
import { emitOpenApi } from "../../compiler/index.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { compileFile } from "../support/service.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** An executor that must not be reached: the page touches no resource route. */
const noDb: Executor = {
  query: () => Promise.reject(new Error("no database in this test")),
  transaction: () => Promise.reject(new Error("no database in this test")),
  script: () => Promise.reject(new Error("no database in this test")),
  close: () => Promise.resolve(),
};

let server: ServerType;
let origin: string;
let operations: number;

beforeAll(async () => {
  const { schema, service } = await compileFile(path.join(ROOT, "spec.resource"));
  const doc = emitOpenApi(schema);
  operations = Object.values(doc.paths).reduce(
    (n, item) => n + ["get", "post", "patch", "delete"].filter((m) => m in item).length,
    0,
  );
  const { app } = createDevApp(service, { db: noDb, openapi: doc });
  server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the /docs page in a browser-like window", () => {
  it("renders every operation of the document from the service's own assets", async () => {
    const loaded: string[] = [];
    const fetched: string[] = [];
    const problems: string[] = [];
    const console = new VirtualConsole();
    console.on("jsdomError", (e: Error) => {
      // jsdom does not implement scrolling, which Swagger UI calls on navigation.
      if (!/scrollTo/.test(e.message)) problems.push(e.message);
    });
    const dom = await JSDOM.fromURL(`${origin}/docs`, {
      // Every sub-resource the page loads (scripts, stylesheet, icon) is recorded.
      resources: {
        interceptors: [
          requestInterceptor((request) => {
            loaded.push(request.url);
          }),
        ],
      },
      runScripts: "dangerously",
      pretendToBeVisual: true,
      virtualConsole: console,
      beforeParse(window) {
        // jsdom has no fetch; the page's requests go through Node's, and are recorded.
        Object.assign(window, {
          fetch: (input: string | URL, init?: RequestInit) => {
            const url = new URL(String(input), window.location.href).href;
            fetched.push(url);
            return fetch(url, init);
          },
          matchMedia: () => ({
            matches: false,
            addListener() {},
            removeListener() {},
            addEventListener() {},
            removeEventListener() {},
          }),
        });
      },
    });
    try {
      const document = dom.window.document;
      // Wait for Swagger UI to fetch the document and render it (polling, not a speed target).
      for (let i = 0; i < 200 && document.querySelectorAll(".opblock").length < operations; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(document.querySelectorAll(".opblock").length).toBe(operations);
      expect(document.querySelector(".info .title")?.textContent).toContain("Task Tracker");
      expect(document.querySelector(".info .title")?.textContent).toContain("1.4.0");
      const paths = [...document.querySelectorAll(".opblock-summary-path")].map((e) => e.textContent);
      expect(paths).toContain("/tasks/{id}");
      expect(problems).toEqual([]);
      expect(loaded).toEqual(
        expect.arrayContaining([`${origin}/docs`, `${origin}/docs/swagger-ui-bundle.js`, `${origin}/docs/init.js`]),
      );
      expect(fetched).toContain(`${origin}/openapi.json`);
      for (const url of [...loaded, ...fetched]) expect(url.startsWith(`${origin}/`), url).toBe(true);
    } finally {
      dom.window.close();
    }
  }, 60_000);
});
