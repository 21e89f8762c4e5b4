/**
 * What the PgBouncer suites share (test/serve/pgbouncer.test.ts,
 * pgbouncer-prepared.test.ts): a database of the faults fixture with fifty
 * naps behind a PgBouncer the suite starts, and one concurrent load of
 * reads of three shapes and writes of three kinds.
 */
import { afterAll, beforeAll } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { RawRequest } from "../fuzz/support/http.js";
import { createTestDatabase, type TestDatabase } from "./db.js";
import { startPgBouncer, type BouncerOptions, type TestBouncer } from "./pgbouncer.js";
import { startServe } from "./serve-process.js";
import { compileFile } from "./service.js";

/** The schema both suites serve. */
export const PGBOUNCER_FILE = "test/faults/fixtures/faults.resource";

/** A suite's database and the PgBouncer in front of it (set once its `beforeAll` ran). */
export interface BouncedDatabase {
  service: ServiceDescriptor;
  db: TestDatabase | undefined;
  bouncer: TestBouncer | undefined;
}

/**
 * Creates the suite's database (none when `binary` is undefined: the suite
 * skips) and registers the suite's `beforeAll`, which loads the fixture and
 * its naps and starts PgBouncer (`binary`, 3 server connections,
 * `options`), and its `afterAll`, which stops both. Call at module level.
 */
export async function bouncedDatabase(
  label: string,
  binary: string | undefined,
  options: BouncerOptions = {},
): Promise<BouncedDatabase> {
  const { service, ddl } = await compileFile(PGBOUNCER_FILE);
  const state: BouncedDatabase = {
    service,
    db: binary ? await createTestDatabase(label) : undefined,
    bouncer: undefined,
  };
  beforeAll(async () => {
    if (!state.db || state.db.kind !== "pg") return;
    await state.db.executor.script(`${ddl}\nINSERT INTO naps (name) SELECT 'n' || g FROM generate_series(1, 50) g;`);
    state.bouncer = await startPgBouncer(state.db.url!, 3, { ...options, binary });
  }, 60_000);
  afterAll(async () => {
    await state.bouncer?.stop();
    await state.db?.drop();
  });
  return state;
}

/** Reads of three shapes and writes of three kinds, 40 of each, to send all at once. */
export function mixedLoad(): RawRequest[] {
  const out: RawRequest[] = [];
  for (let i = 1; i <= 40; i++) {
    out.push(
      { method: "GET", path: `/naps?name=eq.n${i}` },
      { method: "GET", path: `/naps/${i}` },
      { method: "GET", path: `/naps?sort=-id&per_page=${(i % 5) + 1}` },
    );
    out.push({ method: "POST", path: "/pins", body: JSON.stringify({ label: `p${i}` }) });
    out.push({ method: "PATCH", path: `/naps/${i}`, body: JSON.stringify({ name: `m${i}` }) });
  }
  return out;
}

/**
 * Starts `resc serve` of the fixture through the suite's PgBouncer with
 * `flags`, sends it 30 list requests of four shapes at once and stops it.
 * @returns the answers' statuses
 */
export async function serveThroughBouncer(suite: BouncedDatabase, flags: string[]): Promise<number[]> {
  const node = await startServe(PGBOUNCER_FILE, ["--database-url", suite.bouncer!.through(suite.db!.url!), ...flags]);
  try {
    return await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        fetch(`${node.base}/naps?name=eq.n${i + 1}&per_page=${(i % 4) + 1}`).then((r) => r.status),
      ),
    );
  } finally {
    await node.stop();
  }
}
