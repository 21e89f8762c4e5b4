/**
 * What `resc generate` emits and writes, and the staleness check (spec:
 * Generator configuration, "A staleness check covers both emitted files"),
 * for `resc generate` and `resc generate --check`. Every backend that
 * writes files is in {@link BACKENDS}, so the check covers every file.
 */
import { mkdir, open, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { emitCommandTree } from "./backends/cli-tree/index.js";
import { clientLayout, emitClient } from "./backends/client/index.js";
import { emitHono } from "./backends/hono/index.js";
import { GENERATED_HEADER, type GeneratedFile } from "./generated-file.js";
import type { Schema } from "../language/ir.js";
import type { ServiceDescriptor } from "../runtime/descriptor.js";
import { buildDescriptor } from "./descriptor.js";

/** What every backend reads: a valid schema and its descriptor, built once for all of them. */
export interface EmitInput {
  schema: Schema;
  service: ServiceDescriptor;
}

/** A backend that writes files under the `generate` block's dir. */
export interface Backend {
  /** A short name for messages (`hono`, `client`, …). */
  name: string;
  /** The files of a valid schema, paths relative to the `generate` block's dir; may be empty. */
  emit(input: EmitInput): Promise<GeneratedFile[]>;
}

/**
 * The backends `resc generate` runs, in order: the Hono module, the typed
 * client and the command tree where the `generate` block asks for them
 * (docs/decisions/1050-client-layout.md).
 */
export const BACKENDS: readonly Backend[] = [
  { name: "hono", emit: ({ schema, service }) => emitHono(schema, { service }) },
  {
    name: "client",
    emit: ({ schema, service }) => {
      const dir = clientLayout(schema).client;
      return dir === undefined ? Promise.resolve([]) : emitClient(schema, dir, service);
    },
  },
  {
    name: "commands",
    emit: ({ schema, service }) => {
      const layout = clientLayout(schema);
      if (layout.commands === undefined || layout.client === undefined) return Promise.resolve([]);
      return emitCommandTree(schema, layout.commands, { cliName: layout.cliName, clientDir: layout.client, service });
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
  const input: EmitInput = { schema, service: buildDescriptor(schema) };
  for (const backend of backends) {
    for (const file of await backend.emit(input)) {
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
 * replacing existing files. Files that are no longer generated are left to
 * {@link orphanedGenerated} and {@link removeOrphaned}.
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

export { GENERATED_HEADER };

async function startsWithHeader(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const buf = Buffer.alloc(GENERATED_HEADER.length);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.toString("utf8", 0, bytesRead) === GENERATED_HEADER;
  } finally {
    await handle.close();
  }
}

/**
 * The files under `rootDir` that begin with {@link GENERATED_HEADER} but are
 * not among `files`: what an earlier schema generated and this one no longer
 * does (the command of a removed resource, a client after its `client_dir`
 * moved). Paths relative to `rootDir`, `/`-separated, sorted; empty when
 * `rootDir` does not exist. `node_modules` and dot-directories are not
 * searched (decision 1053).
 * @throws the file system's error other than a missing `rootDir`
 */
export async function orphanedGenerated(files: readonly GeneratedFile[], rootDir: string): Promise<string[]> {
  const root = path.resolve(rootDir);
  const emitted = new Set(files.map((f) => path.resolve(root, f.path)));
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT" && dir === root) return;
      throw e;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) await walk(full);
      } else if (entry.isFile() && !emitted.has(full) && (await startsWithHeader(full))) {
        out.push(path.relative(root, full).split(path.sep).join("/"));
      }
    }
  };
  await walk(root);
  return out.sort();
}

/**
 * Deletes the files {@link orphanedGenerated} names (paths relative to
 * `rootDir`).
 * @throws the file system's error (EACCES, …)
 */
export async function removeOrphaned(orphans: readonly string[], rootDir: string): Promise<void> {
  for (const p of orphans) await unlink(path.resolve(rootDir, p));
}
