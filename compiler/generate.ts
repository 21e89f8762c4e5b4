/**
 * What `resc generate` emits and writes, and the staleness check (spec:
 * Generator configuration, "A staleness check covers both emitted files"),
 * for `resc generate` and `resc generate --check`. Every backend that
 * writes files is in {@link BACKENDS}, so the check covers every file.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { emitCommandTree } from "./backends/cli-tree/index.js";
import { clientLayout, emitClient } from "./backends/client/index.js";
import { emitHono } from "./backends/hono/index.js";
import type { GeneratedFile } from "./generated-file.js";
import type { Schema } from "./ir.js";

/** A backend that writes files under the `generate` block's dir. */
export interface Backend {
  /** A short name for messages (`hono`, `client`, …). */
  name: string;
  /** The files of a valid schema, paths relative to the `generate` block's dir; may be empty. */
  emit(schema: Schema): Promise<GeneratedFile[]>;
}

/**
 * The backends `resc generate` runs, in order: the Hono module, the typed
 * client and the command tree where the `generate` block asks for them
 * (docs/decisions/1050-client-layout.md).
 */
export const BACKENDS: readonly Backend[] = [
  { name: "hono", emit: (schema) => emitHono(schema) },
  {
    name: "client",
    emit: (schema) => {
      const dir = clientLayout(schema).client;
      return dir === undefined ? Promise.resolve([]) : emitClient(schema, dir);
    },
  },
  {
    name: "commands",
    emit: (schema) => {
      const layout = clientLayout(schema);
      if (layout.commands === undefined || layout.client === undefined) return Promise.resolve([]);
      return emitCommandTree(schema, layout.commands, { cliName: layout.cliName, clientDir: layout.client });
    },
  },
];

/**
 * Every file of every backend, in backend order.
 * @throws Error when two backends would write the same path (e.g. a
 *   `client_dir` equal to the Hono `package`), naming the path
 */
export async function emitAll(schema: Schema, backends: readonly Backend[] = BACKENDS): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  const owner = new Map<string, string>();
  for (const backend of backends) {
    for (const file of await backend.emit(schema)) {
      const key = path.posix.normalize(file.path);
      const other = owner.get(key);
      if (other !== undefined) {
        throw new Error(`${file.path} would be written by both the ${other} and the ${backend.name} backend; change the generate block's directories`);
      }
      owner.set(key, backend.name);
      files.push(file);
    }
  }
  return files;
}

/**
 * The absolute path of a generated file under `rootDir`.
 * @throws Error when the file's path is absolute or climbs out of `rootDir`
 */
function target(rootDir: string, file: GeneratedFile): string {
  const root = path.resolve(rootDir);
  const full = path.resolve(root, file.path);
  if (path.isAbsolute(file.path) || (full !== root && !full.startsWith(root + path.sep))) {
    throw new Error(`generated file path ${JSON.stringify(file.path)} leaves ${root}`);
  }
  return full;
}

/**
 * Writes every file under `rootDir`, creating directories as needed and
 * replacing existing files. Files that are no longer generated are left
 * alone (they may be the user's).
 * @throws the file system's error (EACCES, ENOSPC, …)
 */
export async function writeGenerated(files: readonly GeneratedFile[], rootDir: string): Promise<void> {
  for (const file of files) {
    const full = target(rootDir, file);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, file.contents, "utf8");
  }
}

/**
 * The paths (as in `files`) that are missing under `rootDir` or whose bytes
 * differ from what would be written; empty when everything is up to date.
 * @throws the file system's error other than a missing file
 */
export async function checkGenerated(files: readonly GeneratedFile[], rootDir: string): Promise<string[]> {
  const stale: string[] = [];
  for (const file of files) {
    let current: string | undefined;
    try {
      current = await readFile(target(rootDir, file), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (current !== file.contents) stale.push(file.path);
  }
  return stale;
}
