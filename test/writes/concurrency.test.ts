/**
 * Concurrent conflicting creates (spec: Concurrency) against the real server: of
 * twenty creates racing for one unique value, exactly one is stored (201)
 * and nineteen are refused (409) with nothing half-written, and only the
 * committed one is followed by its AfterCommit hook.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { CommitEvent } from "../../runtime/hooks.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, databaseWith, mounted } from "../hooks/support.js";
import { GADGETS } from "./schema.js";

let db: TestDatabase;
let service: ServiceDescriptor;

beforeAll(async () => {
  const c = compileText(GADGETS, "gadgets.resource");
  service = c.service;
  db = await databaseWith("writes_race", c.ddl);
});
afterAll(async () => {
  await db?.drop();
});

describe("twenty concurrent creates of one unique value", () => {
  it("one 201, nineteen 409, one row, one AfterCommit", async (t) => {
    // PGlite runs one statement at a time: there is no race to observe there.
    if (db.kind !== "pg") t.skip();
    const committed: CommitEvent[] = [];
    const client = mounted(service, {
      db: db.executor,
      hooks: { afterCommit: { gadgets: (_c, e) => void committed.push(e) } },
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.request("POST", "/gadgets", {
          sku: "only-one",
          name: `racer ${i}`,
          serial: `S${i}`,
          note: `attempt ${i}`,
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(19).fill(409)]);
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body).toMatchObject({ type: "/problems/conflict", status: 409, errors: [{ location: "body.sku" }] });
    }
    const winner = answers.find((a) => a.status === 201)!.body as { id: number; name: string; note: string };
    const rows = (
      await db.executor.query({ text: `SELECT id::text, name, note FROM gadgets WHERE sku = 'only-one'`, values: [] })
    ).rows;
    // The stored row is exactly the winner's, every field of one request.
    expect(rows).toEqual([{ id: String(winner.id), name: winner.name, note: winner.note }]);
    expect(winner.note).toBe(`attempt ${winner.name.replace("racer ", "")}`);
    expect((await db.executor.query({ text: `SELECT count(*)::text AS n FROM gadgets`, values: [] })).rows).toEqual([
      { n: "1" },
    ]);
    expect(committed.map((e) => e.key)).toEqual([winner.id]);
  });
});
