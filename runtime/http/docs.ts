/**
 * Serves the OpenAPI description and a documentation page (spec: "What the
 * service does": "an OpenAPI description and a documentation page, served
 * by the default server"). The runtime never builds the document: it
 * receives it as data, from the generated module (`<package>/openapi.ts`)
 * or from `resc dev`, which computes it in memory.
 *
 * The page is Swagger UI, served from the `swagger-ui-dist` package in
 * node_modules, so it works without internet access
 * (docs/decisions/1001-documentation-page.md).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Context, Hono } from "hono";

/**
 * An OpenAPI document as plain JSON data: what `resc openapi` prints and
 * what a generated module exports as `openapi`. Only the members the docs
 * page reads are typed; the rest is passed through untouched.
 */
export type OpenApiData = {
  openapi: string;
  info: { title: string; version: string; description?: string; license?: { name: string; identifier?: string } };
  paths: Record<string, unknown>;
  servers?: { url: string; description?: string }[];
  [member: string]: unknown;
};

/** A document path the documentation routes would collide with. */
export interface DocsCollision {
  /** The OpenAPI path, e.g. `/docs` or `/docs/{id}`. */
  path: string;
  message: string;
}

/** Outcome of {@link mountDocs}: collisions are returned, never thrown, like `mountService`'s registration errors. */
export type DocsResult = { ok: true } | { ok: false; errors: DocsCollision[] };

/** Options of {@link mountDocs}. */
export interface DocsOptions {
  /** Prefix of every route, as given to `mountService`; the document then names it as its server. Default none. */
  basePath?: string;
  /** Path of the JSON document, under `basePath`. Default `/openapi.json`. */
  documentPath?: string;
  /** Path of the documentation page, under `basePath`; its assets live below it. Default `/docs`. */
  pagePath?: string;
  /**
   * Title and version the served document carries instead of the schema's
   * (spec: Versioning, "a title and a version string chosen by the
   * application"); the page shows them too.
   */
  title?: string;
  version?: string;
}

/** The files of `swagger-ui-dist` the page loads, with their media types; nothing else of the package is served. */
const ASSETS: Readonly<Record<string, string>> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui.css.map": "application/json",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-bundle.js.map": "application/json",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

/** Our own start-up script: a separate file rather than inline, so a strict `script-src 'self'` policy still allows it. */
const INIT_SCRIPT = "init.js";

let assetDir: string | undefined;
const assetCache = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

/** The `swagger-ui-dist` directory, resolved from this module so it works from a checkout and from an installed package. */
function swaggerUiDir(): string {
  assetDir ??= path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return assetDir;
}

/** The bytes of one asset, read once per process. */
function readAsset(name: string): Promise<Uint8Array<ArrayBuffer>> {
  let p = assetCache.get(name);
  if (!p) {
    p = readFile(path.join(swaggerUiDir(), name)).then((b) => new Uint8Array(b));
    // A failed read is retried by the next request rather than cached.
    p.catch(() => assetCache.delete(name));
    assetCache.set(name, p);
  }
  return p;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function pageHtml(title: string, assets: string): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)} — API documentation</title>`,
    `<link rel="stylesheet" href="${assets}/swagger-ui.css">`,
    `<link rel="icon" type="image/png" href="${assets}/favicon-32x32.png">`,
    "</head>",
    "<body>",
    '<div id="docs"></div>',
    `<script src="${assets}/swagger-ui-bundle.js"></script>`,
    `<script src="${assets}/${INIT_SCRIPT}"></script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** `validatorUrl: null`: Swagger UI would otherwise send the document to an online validator. */
function initScript(documentUrl: string): string {
  const config = { url: documentUrl, dom_id: "#docs", deepLinking: true, validatorUrl: null };
  return `window.addEventListener("load", function () {\n  window.ui = SwaggerUIBundle(${JSON.stringify(config)});\n});\n`;
}

function normalise(p: string): string {
  const withSlash = p.startsWith("/") ? p : `/${p}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, "") : withSlash;
}

/** True when the path `template` (OpenAPI `/films/{id}` or Hono `/films/:id`) matches the concrete path `p`. */
function templateMatches(template: string, p: string): boolean {
  const a = template.split("/");
  const b = p.split("/");
  return a.length === b.length && a.every((seg, i) => /^(?:\{[^}]*\}|:.+)$/.test(seg) || seg === b[i]);
}

/** Paths (`paths`, all under the same prefix as the two given) the docs routes would shadow or be shadowed by. */
function collisions(paths: Iterable<string>, documentPath: string, pagePath: string): DocsCollision[] {
  const errors: DocsCollision[] = [];
  for (const p of paths) {
    const clash =
      templateMatches(p, documentPath) ||
      templateMatches(p, pagePath) ||
      templateMatches(p, `${pagePath}/${INIT_SCRIPT}`) ||
      p.startsWith(`${pagePath}/`);
    if (clash) {
      errors.push({
        path: p,
        message: `the path ${p} collides with the documentation routes (${documentPath}, ${pagePath}); choose other documentPath/pagePath options`,
      });
    }
  }
  return errors;
}

/**
 * Serves `document` at `GET <basePath><documentPath>` (JSON) and the
 * documentation page at `GET <basePath><pagePath>`, with its assets below
 * the page path. With a `basePath`, the served copy names it as its only
 * server so the page's "Try it out" requests reach the routes.
 *
 * Register it next to `mountService`, with the same `basePath`. Given a
 * function instead of a document, it builds the document at the first
 * request for it or for the page, so a server that is seldom asked for
 * its description does not spend its start-up on one (`resc
 * serve`); collisions are then checked against the routes already
 * registered on `app`, so mount the service first.
 *
 * @returns `{ok: true}`, or one error per document path (or, for a
 *   function, registered route) the docs routes would collide with
 *   (nothing is mounted then)
 */
export function mountDocs(
  app: Hono,
  document: OpenApiData | (() => OpenApiData),
  options: DocsOptions = {},
): DocsResult {
  const base = (options.basePath ?? "").replace(/\/+$/, "");
  const documentPath = normalise(options.documentPath ?? "/openapi.json");
  const pagePath = normalise(options.pagePath ?? "/docs");
  const errors =
    typeof document === "function"
      ? collisions(
          app.routes.filter((r) => r.method !== "ALL").map((r) => r.path),
          `${base}${documentPath}`,
          `${base}${pagePath}`,
        )
      : collisions(Object.keys(document.paths), documentPath, pagePath);
  if (errors.length > 0) return { ok: false, errors };

  const assets = `${base}${pagePath}`;
  let built: { documentText: string; html: string } | undefined;
  const rendered = (): { documentText: string; html: string } => {
    if (built) return built;
    const doc = typeof document === "function" ? document() : document;
    const served: OpenApiData = { ...doc, info: { ...doc.info } };
    if (options.title !== undefined) served.info.title = options.title;
    if (options.version !== undefined) served.info.version = options.version;
    // resc documents name "/" (this origin) as their server; under a base path the routes live below it.
    const defaultServer = doc.servers === undefined || (doc.servers.length === 1 && doc.servers[0].url === "/");
    if (base !== "" && defaultServer) served.servers = [{ url: base }];
    built = { documentText: JSON.stringify(served), html: pageHtml(served.info.title, assets) };
    return built;
  };
  if (typeof document !== "function") rendered();
  const init = initScript(`${base}${documentPath}`);

  app.get(`${base}${documentPath}`, (c) =>
    c.body(rendered().documentText, 200, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-cache",
    }),
  );
  app.get(`${base}${pagePath}`, (c) => c.html(rendered().html));
  app.get(`${base}${pagePath}/:asset`, async (c: Context) => {
    const name = c.req.param("asset") ?? "";
    if (name === INIT_SCRIPT) {
      return c.body(init, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" });
    }
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (type === undefined) return c.notFound();
    const bytes = await readAsset(name);
    return c.body(bytes, 200, {
      "content-type": type,
      "cache-control": "public, max-age=86400",
      "x-content-type-options": "nosniff",
    });
  });
  return { ok: true };
}
