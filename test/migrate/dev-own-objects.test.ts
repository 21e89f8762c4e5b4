/**
 * `resc dev` on an embedded database where webhooks have run: the tables the
 * service made for itself (the outbox, the delivery queue, the
 * subscriptions' positions, the idempotency store) are resc's own
 * (docs/decisions/1357-resc-own-objects.md), so a changed schema is applied
 * at the next start and by `--watch`, keeping every row, and neither ever
 * proposes to drop them (docs/decisions/1241-dev-keeps-data.md).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/ports.js";

const V1 = `enum order_state { open shipped }

table orders {
  id    bigint      @primary_key @default(identity)
  state order_state @default(open) @filterable
  total numeric(10,2)

  resource "/orders" { ops = [crud, list], events = true }
}
`;
const V2 = V1.replace("  total numeric(10,2)\n", "  total numeric(10,2)\n  note  text?\n");
const V3 = V2.replace("  note  text?\n", "  note  text?\n  tag   text?\n");

const HOOKS = `export const hooks = {};
export const webhooks = [{ name: "orders", table: "orders", url: process.env.HOOK_URL, secret: process.env.HOOK_SECRET }];
`;

let dir = "";
let receiver: Server;
const received: string[] = [];
const children: ChildProcess[] = [];

/** Polls `fn` every 50 ms until it is true, for at most `ms`; `what` and the output name what did not happen. */
async function until(what: string, fn: () => boolean | Promise<boolean>, output: () => string, ms = 30_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await Promise.resolve(fn()).catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; resc printed:\n${output()}`);
}

/** Starts `resc dev` with the webhooks module on the embedded database `db`; resolves once it serves. */
async function dev(extra: string[] = []): Promise<{ base: string; out: () => string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      path.resolve("bin/resc.js"),
      "dev",
      "schema.resource",
      "--port",
      String(port),
      "--data-dir",
      "db",
      "--hooks",
      "hooks.mjs",
      ...extra,
    ],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        HOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`,
        HOOK_SECRET: "whsec_" + Buffer.from("a dev test secret").toString("base64"),
      },
    },
  );
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += String(d)));
  child.stderr!.on("data", (d) => (out += String(d)));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  await Promise.race([
    until(
      "resc dev to serve",
      () => out.includes("serving"),
      () => out,
    ),
    exited.then(() => Promise.reject(new Error(`resc dev exited with ${child.exitCode}:\n${out}`))),
  ]);
  return {
    base: `http://127.0.0.1:${port}`,
    out: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-dev-own-"));
  await writeFile(path.join(dir, "hooks.mjs"), HOOKS);
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await new Promise((r) => receiver.close(r));
  await rm(dir, { recursive: true, force: true });
});

describe("resc dev after webhooks have run", () => {
  it("--watch swaps in a changed schema, keeping every row", async () => {
    await writeFile(path.join(dir, "schema.resource"), V1);
    const first = await dev(["--watch"]);
    try {
      const r = await fetch(`${first.base}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"total":"12.50"}',
      });
      expect(r.status).toBe(201);
      // Delivered: the service has made its delivery queue and moved the subscription's position.
      await until("the webhook delivery", () => received.length > 0, first.out);
      await writeFile(path.join(dir, "schema.resource"), V2);
      await until(
        "the reload",
        () => /reloaded schema\.resource|still serving the last good schema/.test(first.out()),
        first.out,
      );
      expect(first.out()).not.toMatch(/still serving the last good schema|resc_/);
      const page = (await (await fetch(`${first.base}/orders`)).json()) as { items: unknown[] };
      expect(page.items).toEqual([{ id: 1, state: "open", total: "12.50", note: null }]);
    } finally {
      await first.stop();
    }
  });

  it("applies a changed schema at the next start, keeping every row", async () => {
    // The data directory the webhooks of the test above ran on.
    await writeFile(path.join(dir, "schema.resource"), V3);
    const second = await dev();
    try {
      expect(second.out()).toMatch(/migrated the embedded database to the changed schema \(1 step\); rows kept/);
      expect(second.out()).not.toMatch(/resc_/);
      const page = (await (await fetch(`${second.base}/orders`)).json()) as { items: unknown[] };
      expect(page.items).toEqual([{ id: 1, state: "open", total: "12.50", note: null, tag: null }]);
    } finally {
      await second.stop();
    }
  });
});
