/**
 * An idempotent retry after the server restarted, and across nodes
 * (docs/decisions/1335-idempotency-keys.md): the stored answer lives in the
 * database, so a `resc serve` started again, or another node, replays it
 * and writes nothing. Real processes on a real PostgreSQL; the store is
 * made by `resc migrate deploy`, as in production.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { runNode } from "../support/run.js";
import { startServe } from "../support/serve-process.js";
import { compileFile } from "../support/service.js";

const FILE = "test/faults/fixtures/faults.resource";
const db: TestDatabase = await createTestDatabase("idempotency_restart");
const dir = mkdtempSync(path.join(os.tmpdir(), "resc-idem-"));

beforeAll(async () => {
  if (db.kind !== "pg") return;
  const { ddl } = await compileFile(FILE);
  mkdirSync(path.join(dir, "migrations"), { recursive: true });
  writeFileSync(path.join(dir, "migrations", "0001_init.sql"), ddl);
  const deployed = await runNode([
    path.resolve("bin/resc.js"),
    "migrate",
    "deploy",
    db.url!,
    "--dir",
    path.join(dir, "migrations"),
  ]);
  expect(deployed.code, deployed.stderr + deployed.stdout).toBe(0);
}, 60_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db.drop();
});

const naps = async (name: string): Promise<number> =>
  Number(
    (await db.executor.query({ text: "SELECT count(*)::text AS n FROM naps WHERE name = $1", values: [name] })).rows[0]!
      .n,
  );

describe.skipIf(db.kind !== "pg")("an idempotent retry and the server's life", () => {
  it("resc migrate deploy makes the store", async () => {
    const t = await db.executor.query({ text: "SELECT to_regclass('public.resc_idempotency')::text AS t", values: [] });
    expect(t.rows[0]!.t).toBe("resc_idempotency");
  });

  it("replays the stored answer after a restart, and on another node, writing nothing", async () => {
    const send = (base: string) =>
      fetch(`${base}/naps`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "restart-1" },
        body: JSON.stringify({ name: "survives restart" }),
      });
    const first = await startServe(FILE, ["--database-url", db.url!]);
    let created: Response;
    let text: string;
    try {
      created = await send(first.base);
      text = await created.text();
      expect(created.status, text).toBe(201);
    } finally {
      await first.stop();
    }
    const [again, other] = await Promise.all([0, 1].map(() => startServe(FILE, ["--database-url", db.url!])));
    try {
      for (const node of [again!, other!]) {
        const retried = await send(node.base);
        expect(retried.status).toBe(201);
        expect(retried.headers.get("idempotent-replayed")).toBe("true");
        expect(retried.headers.get("location")).toBe(created.headers.get("location"));
        expect(await retried.text()).toBe(text);
      }
    } finally {
      await Promise.all([again!.stop(), other!.stop()]);
    }
    expect(await naps("survives restart")).toBe(1);
  });
});
