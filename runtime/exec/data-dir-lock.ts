/**
 * One process at a time in an embedded database's data directory. PGlite
 * has no lock of its own: two processes writing one directory corrupt it,
 * and a second `resc dev` used to migrate the directory under the first
 * (docs/decisions/1251-data-directory-lock.md). The holder writes
 * `<dir>.lock` beside the directory (inside it, PGlite's initdb would find
 * the directory not empty) with its pid and command line; a lock whose
 * process is gone is stale and taken over.
 */
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The lock file of data directory `dir`: `<dir>.lock`, beside it. */
export function lockFileOf(dir: string): string {
  return path.join(path.dirname(path.resolve(dir)), `${path.basename(path.resolve(dir))}.lock`);
}

/** What the lock file records about its holder. */
export interface LockHolder {
  pid: number;
  /** The holder's command line, as it started. */
  command: string;
  /** ISO 8601 time the lock was taken. */
  since: string;
}

/** Thrown when another live process holds the directory; the message names it and what to do. */
export class DataDirectoryLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the embedded database in ${dir} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}); ` +
        `stop that process first, or give this one another data directory`,
    );
    this.name = "DataDirectoryLockedError";
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const h = JSON.parse(readFileSync(file, "utf8")) as Partial<LockHolder>;
    return typeof h.pid === "number" ? { pid: h.pid, command: String(h.command), since: String(h.since) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock of directory `dir` for this process (its parent must exist).
 * @returns a release function: removes the lock file if this process still holds it; also run at process exit
 * @throws DataDirectoryLockedError when a live process (this one included, through another open) holds it
 */
export function lockDataDirectory(dir: string): () => void {
  const file = lockFileOf(dir);
  const me: LockHolder = {
    pid: process.pid,
    command: process.argv.slice(1).join(" "),
    since: new Date().toISOString(),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(me) + "\n", { flag: "wx" });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 2) throw e;
      const holder = readHolder(file);
      if (holder && alive(holder.pid)) throw new DataDirectoryLockedError(dir, holder);
      // Stale (its process is gone) or unreadable half-written: take it over.
      try {
        unlinkSync(file);
      } catch {
        // Another process removed it first; try again.
      }
    }
  }
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    process.off("exit", release);
    if (readHolder(file)?.pid === process.pid) {
      try {
        unlinkSync(file);
      } catch {
        // Already gone: nothing to release.
      }
    }
  };
  process.on("exit", release);
  return release;
}
