/**
 * `resc dev --watch` (docs/decisions/1241-dev-keeps-data.md): on each save of the schema, recompile;
 * on an error, print it with its code frame and keep serving the last good
 * schema; otherwise bring the database along (the embedded one is migrated,
 * keeping its rows; a server must already match) and swap the routes. The
 * port stays open and requests in flight finish on the routes they started
 * on (docs/decisions/1241-dev-keeps-data.md).
 */
import { createHash } from "node:crypto";
import { watch } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Hono } from "hono";
import { buildDescriptor } from "../../compiler/descriptor.js";
import { emitOpenApi } from "../../compiler/backends/openapi/index.js";
import { emitSql, schemaNamespaces } from "../../compiler/backends/sql/index.js";
import type { Schema } from "../../language/ir.js";
import { SCHEMA_MARKER } from "../../runtime/exec/embedded.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { loadSchema } from "../load.js";
import { createDevApp, type DevAppOptions } from "./app.js";
import { migrateEmbedded } from "./evolve.js";
import { declaredRenames, findSchemaMismatches } from "../../catalog/index.js";

/** What the watcher needs to rebuild the app. */
export interface WatchOptions {
  file: string;
  db: Executor;
  /** The embedded database's directory; absent on a server (`--database-url`). */
  dataDir?: string;
  acceptDataLoss: boolean;
  app: Omit<DevAppOptions, "db" | "openapi">;
  /** Receives each new app once it is ready to serve. */
  swap: (app: Hono) => void;
  log: (line: string) => void;
}

/** Brings the database to `schema`; returns why not, when it cannot. */
async function follow(o: WatchOptions, schema: Schema): Promise<string | undefined> {
  if (o.dataDir === undefined) {
    const missing = await findSchemaMismatches(o.db, schema);
    return missing.length > 0 ? `the database does not match:\n  - ${missing.join("\n  - ")}` : undefined;
  }
  const ddl = emitSql(schema);
  const result = await migrateEmbedded(o.db, ddl, declaredRenames(schema), o.acceptDataLoss, schemaNamespaces(schema));
  if ("refused" in result) {
    return `the change would lose data:\n${result.refused.map((s) => `  - ${s}`).join("\n")}\nrestart with --accept-data-loss to apply it`;
  }
  await writeFile(path.join(o.dataDir, SCHEMA_MARKER), createHash("sha256").update(ddl, "utf8").digest("hex") + "\n");
  return undefined;
}

async function reload(o: WatchOptions): Promise<void> {
  const started = performance.now();
  const r = await loadSchema(o.file, (s) => process.stderr.write(s));
  if (!r.ok) {
    o.log(`resc: ${r.message}; still serving the last good schema`);
    return;
  }
  const refused = await follow(o, r.schema).catch((e: Error) => `the database could not follow: ${e.message}`);
  if (refused !== undefined) {
    o.log(`resc: ${refused}\nresc: still serving the last good schema`);
    return;
  }
  const built = createDevApp(buildDescriptor(r.schema), { ...o.app, db: o.db, openapi: emitOpenApi(r.schema) });
  if (!built.mounted.ok) {
    o.log(
      `resc: the routes did not mount:\n  - ${built.mounted.errors.map((e) => e.message).join("\n  - ")}\nresc: still serving the last good schema`,
    );
    return;
  }
  o.swap(built.app);
  o.log(`resc: reloaded ${o.file} in ${Math.round(performance.now() - started)} ms`);
}

/**
 * Watches `o.file` (through its directory, since editors often replace the
 * file on save) and reloads on each change, one reload at a time.
 * @returns a function that stops watching
 */
export function watchSchema(o: WatchOptions): () => void {
  const dir = path.dirname(path.resolve(o.file));
  const base = path.basename(o.file);
  let timer: NodeJS.Timeout | undefined;
  let queue = Promise.resolve();
  const watcher = watch(dir, (_event, name) => {
    if (name !== null && name !== base) return;
    clearTimeout(timer);
    // Editors write in several steps; act once the file has settled.
    timer = setTimeout(() => {
      queue = queue.then(() => reload(o)).catch((e: Error) => o.log(`resc: reload failed: ${e.message}`));
    }, 50);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
