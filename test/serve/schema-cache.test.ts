/**
 * The compiled-schema cache of `resc serve` (cli/schema-cache.ts, decision
 * 1326): a second start of an unchanged file serves the schema compiled by
 * the first, printing the same warnings; an edited file, a damaged entry or
 * `--no-cache` compiles anew; a start from the cache loads neither the
 * grammar nor the validator. `CACHE_DIR` puts the cache in a temporary
 * directory; the schema is a copy, so the test can edit it.
 */
import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { loadedModules, TRACE_LOADS_IMPORT } from "../support/loaded-modules.js";
import { startServe } from "../support/serve-process.js";
import { compileFile } from "../support/service.js";

const db: TestDatabase = await createTestDatabase("schema_cache");
const tmp = mkdtempSync(path.join(os.tmpdir(), "resc-schema-cache-"));
const file = path.join(tmp, "app.resource");
const cacheDir = path.join(tmp, "cache");
const env = { ...process.env, CACHE_DIR: cacheDir };

beforeAll(async () => {
  copyFileSync("test/serve/fixtures/cache.resource", file);
  if (db.kind !== "pg") return;
  const { ddl } = await compileFile(file);
  await db.executor.script(
    ddl + "\nINSERT INTO owners (name) VALUES ('Ann'); INSERT INTO pets (owner_id, name) VALUES (1, 'Rex');",
  );
}, 60_000);

afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await db.drop();
});

/** Entries in the cache directory. */
const entries = (): string[] => {
  try {
    return readdirSync(path.join(cacheDir, "resc")).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
};

/** The key of the one complete entry, or undefined. */
const entryKey = (): string | undefined => {
  const [name] = entries();
  try {
    return name
      ? (JSON.parse(readFileSync(path.join(cacheDir, "resc", name), "utf8")) as { key: string }).key
      : undefined;
  } catch {
    return undefined;
  }
};

/** Starts, reads what it logged, answered and loaded, stops. */
async function run(
  args: string[] = [],
): Promise<{ state: unknown; printed: string; pets: unknown; document: unknown; loaded: Set<string> }> {
  const before = entryKey();
  const trace = path.join(tmp, "loads.txt");
  rmSync(trace, { force: true });
  const node = await startServe(file, ["--database-url", db.url!, ...args], {
    env: { ...env, RESC_TRACE_LOADS: trace },
    nodeArgs: TRACE_LOADS_IMPORT,
  });
  try {
    const pets = ((await (await fetch(`${node.base}/pets?expand=owner`)).json()) as { items: unknown }).items;
    const document = await (await fetch(`${node.base}/openapi.json`)).json();
    const lines = node.output().split("\n");
    const serving = lines.find((l) => l.includes('"msg":"serving')) ?? "{}";
    const state = (JSON.parse(serving) as { schema_cache?: unknown }).schema_cache;
    // After a miss the entry is written once the server answers, off the path to its first response.
    for (let i = 0; i < 250 && state === "miss" && (entryKey() === undefined || entryKey() === before); i++)
      await new Promise((r) => setTimeout(r, 20));
    // Every line is one JSON object (docs/deploy.md, "Logs"); the diagnostics are the lines with a code.
    const records = lines.filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
    const printed = records
      .filter((r) => r.code !== undefined)
      .map(
        (r) =>
          `${r.level === 40 ? "warning" : "error"}[${String(r.code)}] ${String(r.file)}:${String(r.line)}:${String(r.column)} ${String(r.msg)}`,
      )
      .join("\n");
    const { packages, own } = loadedModules(trace);
    return { state, printed, pets, document, loaded: new Set([...packages, ...own]) };
  } finally {
    await node.stop();
  }
}

describe.skipIf(db.kind !== "pg")("resc serve's compiled-schema cache", () => {
  it("compiles at the first start and serves the same schema from the cache at the next, with the same warnings", async () => {
    const first = await run();
    expect(first.state).toBe("miss");
    expect(first.loaded).toContain("chevrotain");
    expect(first.printed).toMatch(/warning\[unindexed-foreign-key\]/);
    expect(entries()).toHaveLength(1);
    const second = await run();
    expect(second.state).toBe("hit");
    // Served without loading the grammar or the validator.
    expect(second.loaded).not.toContain("chevrotain");
    expect([...second.loaded].filter((m) => /^dist\/(grammar|compiler\/validate)\//.test(m))).toEqual([]);
    expect(second.loaded).toContain("dist/compiler/descriptor.js");
    expect(second.printed).toBe(first.printed);
    expect(second.pets).toMatchObject([{ name: "Rex", owner: { name: "Ann" } }]);
    expect(second.pets).toEqual(first.pets);
    expect(second.document).toEqual(first.document);
  });

  it("compiles anew when the file changes, and replaces the entry", async () => {
    appendFileSync(file, "\n// an edit\n");
    expect((await run()).state).toBe("miss");
    expect(entries()).toHaveLength(1);
    expect((await run()).state).toBe("hit");
  });

  it("compiles anew over a damaged entry, and with --no-cache reads and writes nothing", async () => {
    writeFileSync(path.join(cacheDir, "resc", entries()[0]!), '{"key":');
    expect((await run()).state).toBe("miss");
    expect((await run()).state).toBe("hit");
    rmSync(path.join(cacheDir, "resc"), { recursive: true });
    const off = await run(["--no-cache"]);
    expect(off.state).toBe("off");
    expect(off.pets).toMatchObject([{ name: "Rex", owner: { name: "Ann" } }]);
    expect(entries()).toEqual([]);
  });
});
