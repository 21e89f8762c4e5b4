/**
 * The idempotency store under load and across nodes
 * (docs/decisions/1335-idempotency-keys.md, 1360-idempotency-scope.md), on
 * the back office schema: twenty-four concurrent keyed creates on a database
 * without `resc_idempotency` are all answered 201 (the requests that find it
 * missing create it once; creators on several nodes queue on an advisory
 * lock instead of colliding in the catalog), on PostgreSQL and on the
 * embedded database; two nodes (two services, two pools, one database)
 * racing one key make one row, every other answer the replay or the
 * documented 409, directly and through PgBouncer in transaction mode (where
 * it is installed).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { IDEMPOTENCY_TABLE } from "../../runtime/idempotency-store.js";
import type { TestDatabase } from "../support/db.js";
import { PGBOUNCER, startPgBouncer, type TestBouncer } from "../support/pgbouncer.js";
import type { Answer } from "../support/service.js";
import { createBackOffice, databaseKinds, freshDatabase, ORG_A, ORG_B, serveBackOffice } from "./support.js";

const kinds = await databaseKinds();
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
});

async function database(kind: "pg" | "pglite", label: string): Promise<TestDatabase> {
  const db = await freshDatabase(kind, label);
  cleanup.push(() => db.drop());
  return db;
}

/** `n` executors on `url`, as `n` nodes of one service would hold (dropped before the database). */
function nodes(url: string, n: number, pgbouncer = false): PgExecutor[] {
  const out = Array.from({ length: n }, () => createPgExecutor({ connectionString: url, max: 6, pgbouncer }));
  cleanup.push(async () => {
    for (const e of out) await e.close();
  });
  return out;
}

const statuses = (answers: Answer<unknown>[]) => answers.map((a) => a.status);
const tableExists = async (db: TestDatabase) =>
  (await db.executor.query({ text: "SELECT to_regclass($1::text)::text AS t", values: [IDEMPOTENCY_TABLE] })).rows[0]!
    .t;

for (const kind of kinds) {
  describe(`a database without the store, on ${kind}`, () => {
    it("answers 24 concurrent keyed creates 201, each once, and creates the store on the way", async () => {
      const db = await database(kind, "idem_fresh");
      const service = await createBackOffice(db.executor);
      expect(await tableExists(db)).toBeNull();
      const office = serveBackOffice(db.executor, service);
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          office.post(
            "/invoices",
            { number: `F-${i}`, amount: `${i}.25` },
            { "x-org-id": i % 2 ? ORG_A : ORG_B, "idempotency-key": `fresh-${i}` },
          ),
        ),
      );
      expect(statuses(answers), answers.find((a) => a.status !== 201)?.text).toEqual(Array(24).fill(201));
      expect(await tableExists(db)).toBe(IDEMPOTENCY_TABLE);
      const rows = await office.rows("SELECT count(*)::text AS n FROM invoices WHERE number LIKE 'F-%'");
      expect(rows).toEqual([{ n: "24" }]);
      const stored = await office.rows(`SELECT count(*)::text AS n FROM ${IDEMPOTENCY_TABLE}`);
      expect(stored).toEqual([{ n: "24" }]);
    }, 60_000);
  });
}

const pg = kinds.includes("pg");
if (!PGBOUNCER) console.warn("idempotency/store.test.ts: the PgBouncer cases are skipped (apt-get install pgbouncer)");

describe.skipIf(!pg)("several nodes on one database", () => {
  for (const through of ["directly", "through PgBouncer"] as const) {
    it.skipIf(through !== "directly" && !PGBOUNCER)(
      `${through}: nodes racing for a missing store and then one key make one row; the others replay or are 409`,
      async () => {
        const db = await database("pg", "idem_nodes");
        const service = await createBackOffice(db.executor);
        let url = db.url!;
        if (through !== "directly") {
          const bouncer: TestBouncer = await startPgBouncer(db.url!, 4);
          cleanup.push(() => bouncer.stop());
          url = bouncer.through(db.url!);
        }
        const offices = nodes(url, 2, through !== "directly").map((e) => serveBackOffice(e, service));
        const send = (i: number, key: string, number: string) =>
          offices[i % 2]!.post("/invoices", { number, amount: "1.00" }, { "x-org-id": ORG_A, "idempotency-key": key });

        // Both nodes find the store missing at once: distinct keys, every one answered 201.
        const first = await Promise.all(Array.from({ length: 16 }, (_, i) => send(i, `node-fresh-${i}`, `N-${i}`)));
        expect(statuses(first), first.find((a) => a.status !== 201)?.text).toEqual(Array(16).fill(201));

        // One key, twenty requests over both nodes at once.
        const raced = await Promise.all(Array.from({ length: 20 }, (_, i) => send(i, "node-race", "RACE")));
        expect(
          raced.every((a) => a.status === 201 || a.status === 409),
          statuses(raced).join(","),
        ).toBe(true);
        const fresh = raced.filter((a) => a.status === 201 && a.headers.get("idempotent-replayed") === null);
        expect(fresh).toHaveLength(1);
        for (const a of raced.filter((a) => a.status === 201)) expect(a.text).toBe(fresh[0]!.text);
        for (const a of raced.filter((a) => a.status === 409)) {
          expect((a.body as { type: string }).type).toBe("/problems/request-in-flight");
          expect(a.headers.get("retry-after")).toBe("1");
        }
        // Afterwards either node replays it.
        for (const i of [0, 1]) {
          const again = await send(i, "node-race", "RACE");
          expect([again.status, again.headers.get("idempotent-replayed"), again.text]).toEqual([
            201,
            "true",
            fresh[0]!.text,
          ]);
        }
        expect(await offices[0]!.rows("SELECT count(*)::text AS n FROM invoices WHERE number = 'RACE'")).toEqual([
          { n: "1" },
        ]);
      },
      90_000,
    );
  }
});
