/**
 * Writing generated files and checking them for staleness (spec: Generator
 * configuration, "A staleness check covers both emitted files"), for
 * `resc generate` and `resc generate --check`.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { GeneratedFile } from "./generated-file.js";

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
