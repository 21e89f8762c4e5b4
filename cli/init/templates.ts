/**
 * The files `resc init` writes (issue #11 §1): a project that runs with
 * `npm install && npm start` and passes `npm test`, on the embedded
 * database by default and on `DATABASE_URL` when set
 * (docs/decisions/1242-init.md).
 */

/** The example schema: one resource with every kind of capability a newcomer meets first. */
export const SCHEMA = `// The schema of this service: edit it, then
//   npm run migrate:diff -- --name what_changed   (writes migrations/NNNN_what_changed.sql)
//   npm start                                     (applies new migrations to the embedded database)

/// A small notes service made by \`resc init\`.
api {
  title   = "Notes"
  version = "0.1.0"
}

generate {
  dir     = "generated"
  package = "app"
}

/// A note.
table notes {
  id         bigint      @primary_key @default(identity) @sortable
  title      text        @filterable @sortable @searchable
  body       text        @default("")
  done       boolean     @default(false) @filterable
  created_at timestamptz @default(now()) @read_only @sortable

  @@index([title])

  resource "/notes" {
    ops          = [crud, list]
    default_sort = [-created_at]
  }
}
`;

/** `app.ts`: the database and the app, shared by `server.ts` and the tests. */
export const APP = `/**
 * The service: the routes \`resc generate\` wrote to generated/app, mounted
 * on a Hono app.
 *
 * - DATABASE_URL set: that PostgreSQL, which \`npm run migrate:deploy\` keeps
 *   up to date (nothing is applied from here).
 * - Otherwise: an embedded PostgreSQL in .resc/db, made from migrations/ and
 *   brought up to date with any new migration at start, keeping its rows.
 */
import { readdir, readFile } from "node:fs/promises";
import { Hono } from "hono";
import { createPgExecutor, openEmbeddedDatabase, type Executor } from "resc/runtime";
import { mount } from "./generated/app/index.js";
import { hooks } from "./hooks.js";

/** The migrations, in order. */
async function migrations(): Promise<{ name: string; sql: string }[]> {
  const names = (await readdir("migrations")).filter((n) => /^\\d+_.*\\.sql$/.test(n)).sort();
  return Promise.all(names.map(async (name) => ({ name, sql: await readFile(\`migrations/\${name}\`, "utf8") })));
}

/** Applies the migrations the embedded database has not seen, each with its history row. */
async function applyPending(db: Executor): Promise<void> {
  await db.script(
    "CREATE TABLE IF NOT EXISTS resc_migrations (name text PRIMARY KEY, checksum text NOT NULL DEFAULT '', applied_at timestamptz NOT NULL DEFAULT now())",
  );
  const done = new Set((await db.query({ text: "SELECT name FROM resc_migrations", values: [] })).rows.map((r) => r.name));
  for (const m of await migrations()) {
    if (done.has(m.name)) continue;
    await db.transaction(async (tx) => {
      await tx.script(m.sql);
      await tx.query({ text: "INSERT INTO resc_migrations (name) VALUES ($1)", values: [m.name] });
    });
  }
}

/** Opens the database this process serves. */
export async function openDatabase(dataDir = ".resc/db"): Promise<Executor> {
  if (process.env.DATABASE_URL) return createPgExecutor({ connectionString: process.env.DATABASE_URL });
  const names = (await migrations()).map((m) => m.name).join(", ");
  const { executor } = await openEmbeddedDatabase({
    dataDir,
    // What built the directory is the list of migrations; a new one is applied by \`migrate\`.
    ddl: \`-- migrations: \${names}\`,
    migrate: applyPending,
  });
  await applyPending(executor);
  return executor;
}

/** The app: the generated routes, with a JSON 404. */
export function createApp(db: Executor): Hono {
  const app = new Hono();
  app.notFound((c) => c.json({ type: "/problems/not-found", title: "Not Found", status: 404, detail: "No such route.", errors: [] }, 404));
  const mounted = mount(app, { db, hooks });
  if (!mounted.ok) throw new Error(mounted.errors.map((e) => e.message).join("\\n"));
  return app;
}
`;

/** `server.ts`: serves the app with @hono/node-server. */
export const SERVER = `import { serve } from "@hono/node-server";
import { createApp, openDatabase } from "./app.js";

const db = await openDatabase();
const port = Number(process.env.PORT ?? 3000);
const server = serve({ fetch: createApp(db).fetch, hostname: "127.0.0.1", port }, (info) =>
  console.log(\`serving on http://127.0.0.1:\${info.port}\`),
);
const stop = (): void => void server.close(() => void db.close());
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
`;

/** `hooks.ts`: where the application's rules go (docs/hooks.md in the resc package). */
export const HOOKS = `/**
 * Hooks: the application's code around every request (see resc's docs/hooks.md).
 * This one refuses a note without a title; add BeforeQuery hooks to confine
 * reads, BeforeCreate to stamp read-only columns, AfterCommit to follow writes.
 */
import type { Hooks } from "resc/runtime";

export const hooks: Hooks = {
  validateCreate: {
    notes: (_ctx, values) =>
      typeof values.title === "string" && values.title.trim() === ""
        ? [{ location: "body.title", detail: "a note needs a title" }]
        : [],
  },
};
`;

/** `test/smoke.test.ts`: the service answers, on an embedded database of its own. */
export const SMOKE_TEST = `import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { createApp, openDatabase } from "../app.js";

test("creates a note and lists it; refuses one without a title", async () => {
  delete process.env.DATABASE_URL;
  const dir = await mkdtemp(path.join(os.tmpdir(), "notes-test-"));
  const db = await openDatabase(path.join(dir, "db"));
  try {
    const app = createApp(db);
    const created = await app.request("/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "first" }),
    });
    assert.equal(created.status, 201);
    const page = (await (await app.request("/notes?title=eq.first")).json()) as { items: { title: string }[] };
    assert.deepEqual(page.items.map((n) => n.title), ["first"]);
    const refused = await app.request("/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: " " }),
    });
    assert.equal(refused.status, 422);
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
});
`;

/** `README.md` of the new project. */
export const README = (name: string): string => `# ${name}

A JSON API over PostgreSQL made by \`resc init\`: the schema is
\`schema.resource\`; \`resc generate\` turns it into the routes in \`generated/\`.

\`\`\`sh
npm install
npm start        # http://127.0.0.1:3000/notes, on an embedded database in .resc/db
npm test
\`\`\`

Change the schema, then \`npm run migrate:diff -- --name what_changed\`:
it writes \`migrations/NNNN_what_changed.sql\` for you to review and commit.
\`npm start\` applies new migrations to the embedded database, keeping its
rows. In production set \`DATABASE_URL\` and run \`npm run migrate:deploy\`
before starting. \`npx resc check schema.resource --database-url …\` fails
when a database has drifted from the schema.

- \`curl http://127.0.0.1:3000/notes?done=eq.false&sort=title\`
- the API description: http://127.0.0.1:3000/openapi.json (served by \`npx resc dev schema.resource\`)
`;

/** `.gitignore`. */
export const GITIGNORE = `node_modules/
generated/
.resc/
`;

/** `tsconfig.json`: strict, ESM. */
export const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "skipLibCheck": true,
    "noEmit": true
  },
  "include": ["*.ts", "test/**/*.ts", "generated/**/*.ts"]
}
`;

/** `package.json` of the new project, depending on `resc` at `version`. */
export function packageJson(name: string, rescVersion: string): string {
  return (
    JSON.stringify(
      {
        name,
        version: "0.1.0",
        private: true,
        type: "module",
        scripts: {
          generate: "resc generate schema.resource",
          prestart: "npm run generate",
          start: "tsx server.ts",
          pretest: "npm run generate",
          test: "node --import tsx --test test/*.test.ts",
          "migrate:diff": "resc migrate diff schema.resource",
          "migrate:deploy": "resc migrate deploy",
          "migrate:status": "resc migrate status",
        },
        dependencies: {
          "@hono/node-server": "^1.19.0",
          hono: "^4.9.0",
          resc: `^${rescVersion}`,
          tsx: "^4.20.0",
        },
      },
      null,
      2,
    ) + "\n"
  );
}
