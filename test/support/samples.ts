/**
 * Loads the public sample schemas kept in the repository (`data/chinook`,
 * `data/northwind`, `data/adventureworks`, each with its source and licence)
 * into a test database with the real `psql`, as their authors ship them to
 * be run. What only fits their authors' setup is skipped: creating and
 * connecting to a database of their own (the test made one), and psql
 * meta-commands (AdventureWorks `\copy`s CSV files that are not included,
 * so its tables load empty, as the data's SOURCE.md says). Samples kept as
 * the migrations their application ships (`data/umami`, `data/hoppscotch`)
 * are applied file by file, in name order, as their migration tool would.
 */
import { readdir, readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "./run.js";

/** The samples, by name: the script in `data/<name>/`. */
export const SAMPLES = {
  chinook: "chinook/Chinook_PostgreSql_SerialPKs.sql.gz",
  northwind: "northwind/northwind.sql.gz",
  adventureworks: "adventureworks/install.sql",
} as const;

/** A sample's name. */
export type Sample = keyof typeof SAMPLES;

/** The schemas (namespaces) of each sample that hold its tables. */
export const SAMPLE_SCHEMAS: Readonly<Record<Sample, readonly string[]>> = {
  chinook: ["public"],
  northwind: ["public"],
  adventureworks: ["person", "humanresources", "production", "purchasing", "sales"],
};

/**
 * Runs sample `name`'s script against the database at `url` with psql. Its own statement errors do not stop it
 * (AdventureWorks inserts a few rows that refer to data it does not ship).
 * @throws Error with psql's output when psql cannot run or connect
 */
export async function loadSample(url: string, name: Sample): Promise<void> {
  const file = fileURLToPath(new URL(`../../data/${SAMPLES[name]}`, import.meta.url));
  const raw = await readFile(file);
  const text = (file.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
  const script = text
    .split("\n")
    .filter((l) => !l.startsWith("\\") && !/^(DROP|CREATE) DATABASE\b/i.test(l))
    .join("\n");
  const r = await run("psql", ["-q", "-X", "-d", url, "-f", "-"], { input: script, timeout: 300_000 });
  if (r.code !== 0) throw new Error(`psql could not load ${name}: ${r.stderr}`);
}

/** The samples kept as their application's migrations, by name: the folder of `data/` holding them. */
export const MIGRATED_SAMPLES = {
  umami: "umami/migrations",
  hoppscotch: "hoppscotch/migrations",
} as const;

/** A migrated sample's name. */
export type MigratedSample = keyof typeof MIGRATED_SAMPLES;

/**
 * Applies every `.sql` file of migrated sample `name` to the database at `url` with psql, in name order, stopping
 * at the first statement that fails (Prisma's `migrate deploy` would).
 * @throws Error with psql's output when psql cannot run or connect, or a statement fails
 */
export async function loadMigrations(url: string, name: MigratedSample): Promise<void> {
  const dir = fileURLToPath(new URL(`../../data/${MIGRATED_SAMPLES[name]}/`, import.meta.url));
  const files = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  if (files.length === 0) throw new Error(`no migrations in ${dir}`);
  for (const f of files) {
    const r = await run("psql", ["-q", "-X", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", path.join(dir, f)], {
      timeout: 60_000,
    });
    if (r.code !== 0) throw new Error(`psql could not apply ${name}/${f}: ${r.stderr}`);
  }
}
