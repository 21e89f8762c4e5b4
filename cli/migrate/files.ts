/**
 * Migration files: `migrations/NNNN_name.sql` beside the schema, applied in
 * name order, each identified by its SHA-256 so an edit after it was
 * applied is caught (docs/decisions/1240-migrations.md).
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Step } from "../../catalog/index.js";

/** A migration file read from disk. */
export interface MigrationFile {
  /** File name without directory, e.g. `0002_add_due_dates.sql`. */
  name: string;
  sql: string;
  /** Hex SHA-256 of the file's bytes. */
  checksum: string;
}

const FILE = /^(\d{4,})_[a-z0-9_]+\.sql$/;

/** Hex SHA-256 of `text` as UTF-8. */
export function checksum(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The migrations in `dir`, in order; none when the directory does not exist. Other files are ignored. */
export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  const out: MigrationFile[] = [];
  for (const name of names.filter((n) => FILE.test(n)).sort()) {
    const sql = await readFile(path.join(dir, name), "utf8");
    out.push({ name, sql, checksum: checksum(sql) });
  }
  return out;
}

/** `add due dates` → `add_due_dates`: a file-name slug (lowercase letters, digits, `_`). */
export function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "") || "migration"
  );
}

/** The marking comment `resc migrate diff` writes before a destructive step; {@link destructiveNotes} reads it back. */
const DESTRUCTIVE_MARK = "-- resc: DESTRUCTIVE: ";

/**
 * Why each step of a migration file can lose data or fail on existing rows,
 * as its marking comments say, in file order (empty for a safe migration).
 * `migrate status` and `migrate deploy` list them before anything runs.
 */
export function destructiveNotes(sql: string): string[] {
  return sql
    .split("\n")
    .filter((l) => l.startsWith(DESTRUCTIVE_MARK))
    .map((l) => l.slice(DESTRUCTIVE_MARK.length).trim());
}

/**
 * The migrations in `dir`, in order, for a command that applies or reports them.
 * @throws Error naming the directory (absolute) when it does not exist, and where migrations are written
 */
export async function requireMigrations(dir: string): Promise<MigrationFile[]> {
  const absolute = path.resolve(dir);
  try {
    await readdir(absolute);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    throw new Error(
      `no migrations directory at ${absolute}; pass --dir DIR, or run from the folder that holds migrations/ ` +
        "(resc migrate diff writes it beside the schema)",
    );
  }
  return readMigrations(absolute);
}

/** The text of a migration: a header, then each step, destructive ones preceded by a marking comment. */
export function migrationText(schemaFile: string, steps: readonly Step[]): string {
  const lines = [
    `-- Migration written by \`resc migrate diff\` from ${schemaFile}. Review it before committing;`,
    "-- once applied anywhere, do not edit it: write a new migration instead.",
    "",
  ];
  for (const s of steps) {
    if (s.destructive) lines.push(`${DESTRUCTIVE_MARK}${s.destructive}`);
    lines.push(s.sql, "");
  }
  return lines.join("\n");
}

/**
 * Writes the next migration (`NNNN_slug.sql`, numbered after the last one) and returns its path.
 */
export async function writeNextMigration(
  dir: string,
  existing: readonly MigrationFile[],
  name: string,
  text: string,
): Promise<string> {
  const last = existing.length > 0 ? Number(FILE.exec(existing[existing.length - 1]!.name)![1]) : 0;
  const file = path.join(dir, `${String(last + 1).padStart(4, "0")}_${slug(name)}.sql`);
  await mkdir(dir, { recursive: true });
  await writeFile(file, text, { flag: "wx" });
  return file;
}
