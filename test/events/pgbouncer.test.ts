/**
 * The change feed behind a real PgBouncer in transaction mode
 * (docs/decisions/1337-change-feed.md): two `resc serve --pgbouncer` nodes
 * whose pools go through PgBouncer and whose LISTEN connection goes to the
 * server itself (`--listen-database-url`), a subscriber on each and a
 * write on each: everything arrives everywhere, and each node listens on
 * one direct session. Skipped, saying so, where pgbouncer is not installed
 * (`.ci/run` installs it).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { PGBOUNCER, startPgBouncer, type TestBouncer } from "../support/pgbouncer.js";
import { startServe, type ServeProcess } from "../support/serve-process.js";
import { compileText } from "../support/service.js";
import { openStream, type Stream } from "../support/sse.js";

const SCHEMA = `
table notes {
  id   bigint @primary_key @default(identity)
  body text   @filterable
  resource "/notes" { ops = [crud, list], events = true }
}
`;

if (!PGBOUNCER)
  console.warn("events/pgbouncer.test.ts skipped: pgbouncer is not installed (apt-get install pgbouncer)");
const db: TestDatabase | undefined = PGBOUNCER ? await createTestDatabase("feed_bouncer") : undefined;
let bouncer: TestBouncer | undefined;
let dir: string | undefined;
const nodes: ServeProcess[] = [];
const streams: Stream[] = [];

beforeAll(async () => {
  if (!db || db.kind !== "pg") return;
  await db.executor.script(compileText(SCHEMA).ddl);
  bouncer = await startPgBouncer(db.url!, 3);
  dir = mkdtempSync(path.join(tmpdir(), "resc-feed-bouncer-"));
  writeFileSync(path.join(dir, "notes.resource"), SCHEMA);
}, 60_000);

afterAll(async () => {
  for (const s of streams) s.close();
  for (const n of nodes) await n.stop();
  await bouncer?.stop();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!PGBOUNCER || db?.kind !== "pg")("the change feed behind PgBouncer", () => {
  it("delivers every write on every node, each node listening on one direct session", async () => {
    for (let i = 0; i < 2; i++)
      nodes.push(
        await startServe(path.join(dir!, "notes.resource"), [
          "--database-url",
          bouncer!.through(db!.url!),
          "--pgbouncer",
          "--listen-database-url",
          db!.url!,
          "--pool-size",
          "3",
        ]),
      );
    const [a, b] = nodes as [ServeProcess, ServeProcess];
    for (const n of nodes) {
      const s = await openStream(`${n.base}/notes/events`);
      expect(s.status).toBe(200);
      streams.push(s);
    }
    for (const [n, body] of [
      [a, "written on a"],
      [b, "written on b"],
    ] as const) {
      const r = await fetch(`${n.base}/notes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ body }),
      });
      expect(r.status).toBe(201);
    }
    for (const s of streams) {
      const got = await s.until(2);
      expect(got.map((m) => (m.data as { body: string }).body).sort()).toEqual(["written on a", "written on b"]);
    }
    const listening = await db!.executor.query({
      text: `SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN "resc_events"'`,
      values: [],
    });
    expect(listening.rows[0]!.n).toBe("2");
  }, 90_000);
});
