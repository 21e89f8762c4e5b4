/**
 * `resc dev` on an embedded database where webhooks have run: the tables the
 * service made for itself (the outbox, the delivery queue, the
 * subscriptions' positions, the idempotency store) are resc's own
 * (docs/decisions/1357-resc-own-objects.md), so a changed schema is applied
 * at the next start and by `--watch`, keeping every row, and neither ever
 * proposes to drop them (docs/decisions/1241-dev-keeps-data.md).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { startResc, type ServeProcess } from "../support/serve-process.js";
import { until } from "../support/until.js";

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
let receiver: Receiver;
const running: ServeProcess[] = [];

/** Starts `resc dev` with the webhooks module on the embedded database `db`; resolves once it serves. */
async function dev(extra: string[] = []): Promise<{ base: string; out: () => string; stop: () => Promise<void> }> {
  const p = await startResc("dev", "schema.resource", ["--data-dir", "db", "--hooks", "hooks.mjs", ...extra], {
    cwd: dir,
    env: {
      ...process.env,
      HOOK_URL: receiver.url,
      HOOK_SECRET: "whsec_" + Buffer.from("a dev test secret").toString("base64"),
    },
  });
  running.push(p);
  return { base: p.base, out: p.output, stop: async () => void (await p.stop()) };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-dev-own-"));
  await writeFile(path.join(dir, "hooks.mjs"), HOOKS);
  receiver = await startReceiver(() => 204);
});

afterAll(async () => {
  for (const p of running) await p.kill();
  await receiver.close();
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
      await until("the webhook delivery", () => receiver.got.length > 0, 30_000, first.out);
      await writeFile(path.join(dir, "schema.resource"), V2);
      await until(
        "the reload",
        () => /reloaded schema\.resource|still serving the last good schema/.test(first.out()),
        30_000,
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
