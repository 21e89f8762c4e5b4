/**
 * The scope of an `Idempotency-Key` through the commands
 * (docs/decisions/1360-idempotency-scope.md): `resc dev` (embedded database)
 * and `resc serve` (PostgreSQL) with `--hooks` a module whose hooks tell
 * tenants apart by a cookie and which exports `idempotencyScope`: two
 * tenants sending one key and one body make a row each, and each tenant's
 * retry replays its own. Runs `dist/` (`npm run build`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { freePort } from "../support/ports.js";
import { startServe, type ServeProcess } from "../support/serve-process.js";
import { compileFile } from "../support/service.js";
import { BACK_OFFICE, ORG_A, ORG_B, within } from "./support.js";

const MODULE = "test/idempotency/fixtures/cookie-tenant.ts";
const SEED = `INSERT INTO orgs (id, name) VALUES ('${ORG_A}', 'A'), ('${ORG_B}', 'B');\n`;
/** A database of its own on the server for `resc serve`; none when only PGlite is at hand. */
const db: TestDatabase | undefined = await createTestDatabase("idem_cli").then(async (d) => {
  if (d.kind === "pg") return d;
  await d.drop();
  return undefined;
});
const dir = mkdtempSync(path.join(tmpdir(), "resc-idem-cli-"));
const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Two tenants, one key, one body, then each tenant's retry, against the service at `base`. */
async function twoTenants(base: string): Promise<void> {
  const post = (org: string) =>
    within(
      fetch(`${base}/invoices`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "cli-1", cookie: `org=${org}` },
        body: JSON.stringify({ number: "CLI-1", amount: "10.00" }),
      }),
      `POST /invoices as ${org}`,
    );
  const a = await post(ORG_A);
  const b = await post(ORG_B);
  const [aText, bText] = [await a.text(), await b.text()];
  expect([a.status, b.status], bText).toEqual([201, 201]);
  expect(b.headers.get("idempotent-replayed")).toBeNull();
  expect((JSON.parse(bText) as { org_id: string }).org_id).toBe(ORG_B);
  for (const [org, text] of [
    [ORG_A, aText],
    [ORG_B, bText],
  ] as const) {
    const again = await post(org);
    expect([again.status, again.headers.get("idempotent-replayed"), await again.text()]).toEqual([201, "true", text]);
  }
}

describe("the commands' --hooks module and idempotencyScope", () => {
  it("resc dev on the embedded database scopes keys by the module's idempotencyScope", async () => {
    const seed = path.join(dir, "seed.sql");
    writeFileSync(seed, SEED);
    const port = await freePort();
    const child: ChildProcess = spawn(
      process.execPath,
      [
        path.resolve("bin/resc.js"),
        "dev",
        BACK_OFFICE,
        "--hooks",
        MODULE,
        "--seed",
        seed,
        "--data-dir",
        path.join(dir, "db"),
        "--port",
        String(port),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise((r) => child.once("exit", r));
    stops.push(async () => {
      child.kill("SIGTERM");
      await within(exited, "resc dev stopping").catch(() => child.kill("SIGKILL"));
    });
    let out = "";
    await within(
      new Promise<void>((resolve, reject) => {
        const check = (d: Buffer): void => {
          out += String(d);
          if (/serving/.test(out)) resolve();
        };
        child.stdout!.on("data", check);
        child.stderr!.on("data", check);
        child.once("exit", (code) => reject(new Error(`resc dev exited with ${code}: ${out}`)));
      }),
      "resc dev starting",
      90_000,
    );
    await twoTenants(`http://127.0.0.1:${port}`);
  }, 180_000);

  it.skipIf(!db)(
    "resc serve on PostgreSQL scopes keys by the module's idempotencyScope",
    async () => {
      const { ddl } = await compileFile(BACK_OFFICE);
      await db!.executor.script(ddl + "\n" + SEED);
      const node: ServeProcess = await startServe(BACK_OFFICE, ["--database-url", db!.url!, "--hooks", MODULE]);
      stops.push(() => node.stop());
      await twoTenants(node.base);
    },
    120_000,
  );
});
