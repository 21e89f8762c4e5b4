/**
 * The compiled-schema cache of `resc serve` (decision 1326). A server
 * restarts far more often than its schema changes (deploys of the same
 * release, several nodes, restarts after a fault), and compiling is most of
 * what it does before its first answer: loading the grammar and parsing
 * take some 45 ms on Pagila (bench/COMPILER.md). The compiled IR is kept as JSON
 * under `node_modules/.cache/resc` of the project holding the schema
 * (the convention of find-cache-directory; `CACHE_DIR` moves it), keyed
 * by the exact text of the file, the path diagnostics show and the build
 * of resc, so an edit, a move or an upgrade of resc compiles anew. The
 * diagnostics printed when it was compiled are kept too and printed again.
 *
 * Only the bundled command has a build id (scripts/bundle.mjs defines it);
 * run from its modules (tests, tsx), resc never uses a cache it could not
 * tell apart from one written by other code.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Diagnostic, Schema } from "../language/ir.js";
import type { LoadResult } from "./load.js";
import { shownPath } from "./shown-path.js";

/** Replaced by scripts/bundle.mjs with a hash of the compiled sources; undefined anywhere else. */
declare const RESC_BUILD_ID: string | undefined;

/** The build of resc this process runs, or undefined outside the bundle (then nothing is cached). */
export const BUILD_ID: string | undefined = typeof RESC_BUILD_ID === "string" ? RESC_BUILD_ID : undefined;

/** One cache file: the compiled schema of one schema file, for one text and one build. */
interface Entry {
  key: string;
  diagnostics: string;
  /** The same diagnostics as records, for a caller that logs them one by one. */
  records?: Diagnostic[];
  warnings: number;
  schema: Schema;
}

/** What {@link loadSchemaCached} gives back. */
export interface CachedLoad {
  /** As `loadSchema` (cli/load.ts) returns it. */
  result: LoadResult;
  /**
   * `hit`: the schema came from the cache; `miss`: compiled, and
   * {@link CachedLoad.persist} writes it; `off`: compiled, nothing to write
   * (`--no-cache`, no writable cache directory, not the bundled command, or
   * a schema with errors). `resc serve` logs it with its first line.
   */
  state: "hit" | "miss" | "off";
  /**
   * Writes the entry after a miss (nothing after a hit, an error, or with
   * the cache off). Call it once the server answers: it is off the path to
   * the first response. Never rejects; a cache that cannot be written is
   * only a slower next start.
   */
  persist(): Promise<void>;
}

/** Where the cache of `file` lives, or undefined when no writable place exists. */
async function cacheFile(file: string): Promise<string | undefined> {
  const { default: findCacheDirectory } = await import("find-cache-directory");
  const dir = findCacheDirectory({ name: "resc", files: [file] });
  if (dir === undefined) return undefined;
  const name = createHash("sha256").update(path.resolve(file)).digest("hex").slice(0, 24);
  return path.join(dir, `${name}.json`);
}

/**
 * Reads `file` and returns its compiled schema: from the cache when an
 * entry for this exact text, path and build exists, else compiled (the
 * grammar and the validator are loaded only then). Diagnostics are written
 * to `stderr` in both cases, as `loadSchema` (cli/load.ts) writes them.
 *
 * @param options.cache false to neither read nor write the cache (`--no-cache`)
 * @param options.record when given, receives each diagnostic instead of `stderr` receiving the code frames
 */
export async function loadSchemaCached(
  file: string,
  stderr: (s: string) => void,
  options: { cache: boolean; record?: (d: Diagnostic) => void },
): Promise<CachedLoad> {
  const none = { state: "off" as const, persist: () => Promise.resolve() };
  let source: string;
  try {
    source = await readFile(file, "utf8");
  } catch (e) {
    return {
      ...none,
      result: { ok: false, message: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` },
    };
  }
  const target = options.cache && BUILD_ID !== undefined ? await cacheFile(file).catch(() => undefined) : undefined;
  const key = createHash("sha256")
    .update(`${BUILD_ID}\0${shownPath(file)}\0${source}`)
    .digest("hex");
  if (target !== undefined) {
    // A missing or damaged entry (a disk filled mid-write elsewhere, an edit by hand) is a miss, never an error.
    const entry = await readFile(target, "utf8")
      .then((text) => JSON.parse(text) as Partial<Entry> | null)
      .catch(() => undefined);
    if (entry?.key === key && entry.schema !== undefined && (!options.record || entry.records !== undefined)) {
      if (options.record) entry.records!.forEach(options.record);
      else if (entry.diagnostics) stderr(entry.diagnostics);
      return {
        ...none,
        state: "hit",
        result: { ok: true, schema: entry.schema, source, warnings: entry.warnings ?? 0 },
      };
    }
  }
  const { compileLoaded } = await import("./load.js");
  let diagnostics = "";
  const records: Diagnostic[] = [];
  const result = compileLoaded(
    file,
    source,
    (s) => {
      diagnostics += s;
      stderr(s);
    },
    options.record
      ? (d) => {
          records.push(d);
          options.record!(d);
        }
      : undefined,
  );
  if (target === undefined || !result.ok) return { ...none, result };
  const entry: Entry = {
    key,
    diagnostics,
    ...(options.record ? { records } : {}),
    warnings: result.warnings,
    schema: result.schema,
  };
  return { result, state: "miss", persist: () => write(target, entry) };
}

/** Writes through a file of its own and renames it, so a reader (another node starting) never sees half an entry. */
async function write(target: string, entry: Entry): Promise<void> {
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(temp, JSON.stringify(entry));
    await rename(temp, target);
  } catch {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}
