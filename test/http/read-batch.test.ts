/**
 * Reads by primary key answered together (docs/decisions/1348-reads-batched-per-turn.md;
 * runtime/http/read-batch.ts), against a real database: the plain reads of
 * one table sent in one turn go out as one statement, and each answer
 * (status, body, ETag) is byte for byte what the same read sent alone
 * gets, for integer, uuid and text keys (quotes, commas, braces and the
 * word NULL included), missing and repeated keys, hidden and computed
 * columns; a failed statement fails every read it carried with a 503
 * problem document; a read under a BeforeQuery scope keeps its own
 * statement; a busy turn is split into statements of at most MAX_BATCH
 * keys; the per-resource concurrency cap admits a statement, not a
 * request, so one slot serves a turn's reads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Executor, SqlStatement } from "../../runtime/exec/executor.js";
import { MAX_BATCH } from "../../runtime/http/read-batch.js";
import { cmp } from "../../runtime/predicate.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, databaseWith, mounted, type Client } from "../hooks/support.js";
import { GADGETS } from "../writes/schema.js";

const MORE = `
table tokens {
  id    uuid @primary_key @default(gen_random_uuid())
  label text
  resource "/tokens" { ops = [crud, list] }
}
table words {
  word  text @primary_key
  note  text?
  resource "/words" { ops = [crud, list] }
}
`;

const WORDS = ["plain", "a,b", 'say "hi"', "{braces}", "NULL", "back\\slash", " spaced ", "ünïcode"];

let db: TestDatabase;
let service: ServiceDescriptor;
/** Every statement the service sent, in order. */
const sent: SqlStatement[] = [];
/** When set, the statement is refused with this error instead of being run. */
let refuse: ((stmt: SqlStatement) => Error | undefined) | undefined;
let client: Client;

/** The executor of the test database, recording each statement and refusing those {@link refuse} picks. */
function recording(inner: Executor): Executor {
  return {
    ...inner,
    query(stmt) {
      sent.push(stmt);
      const e = refuse?.(stmt);
      return e ? Promise.reject(e) : inner.query(stmt);
    },
  };
}

const batched = (s: SqlStatement): boolean => s.text.includes("WITH ORDINALITY");

let gadgetIds: number[] = [];
let tokenIds: string[] = [];

beforeAll(async () => {
  const c = compileText(GADGETS + MORE, "read-batch.resource");
  service = c.service;
  db = await databaseWith("readbatch", c.ddl);
  // No per-resource cap here, so every read of a turn reaches the batch at once; the last test keeps it.
  client = mounted(service, { db: recording(db.executor), resourceConcurrency: false, logError: () => {} });
  for (let i = 0; i < 12; i++) {
    const r = await client.request("POST", "/gadgets", { sku: `sku-${i}`, name: `g${i}`, serial: `S${i}` });
    expect(r.status).toBe(201);
    gadgetIds.push((r.body as { id: number }).id);
    const t = await client.request("POST", "/tokens", { label: `t${i}` });
    tokenIds.push((t.body as { id: string }).id);
  }
  for (const word of WORDS) expect((await client.request("POST", "/words", { word, note: word })).status).toBe(201);
});
afterAll(async () => {
  await db?.drop();
});

/** What one read answers: status, ETag and body text. */
async function answer(path: string): Promise<[number, string | null, string]> {
  const r = await client.get(path);
  return [r.status, r.headers.get("etag"), r.text];
}

/** Each path read alone (one at a time), then all at once in one turn; returns both and the statements of the second. */
async function aloneAndTogether(paths: string[]): Promise<{
  alone: [number, string | null, string][];
  together: [number, string | null, string][];
  statements: SqlStatement[];
}> {
  const alone: [number, string | null, string][] = [];
  for (const p of paths) alone.push(await answer(p));
  const from = sent.length;
  const together = await Promise.all(paths.map(answer));
  return { alone, together, statements: sent.slice(from) };
}

describe("reads by key sent in one turn", () => {
  it("are answered by one statement, each as the same read alone (integer keys, missing and repeated ones)", async () => {
    const paths = [...gadgetIds, 999999, gadgetIds[0]!, gadgetIds[3]!].map((id) => `/gadgets/${id}`);
    const { alone, together, statements } = await aloneAndTogether(paths);
    expect(together).toEqual(alone);
    expect(alone.filter(([status]) => status === 200)).toHaveLength(paths.length - 1);
    expect(alone[paths.indexOf("/gadgets/999999")]![0]).toBe(404);
    expect(statements).toHaveLength(1);
    expect(batched(statements[0]!)).toBe(true);
    // Hidden columns stay out, computed ones in, as in a lone read.
    const body = JSON.parse(together[0]![2]) as Record<string, unknown>;
    expect(body).not.toHaveProperty("secret");
    expect(body.label).toBe("g0-sku-0");
  });

  it("match uuid keys however the request spells them, and text keys with any characters", async () => {
    const paths = [
      ...tokenIds.map((id, i) => `/tokens/${i % 2 === 0 ? id.toUpperCase() : id}`),
      ...WORDS.map((w) => `/words/${encodeURIComponent(w)}`),
      `/words/${encodeURIComponent("absent")}`,
    ];
    const { alone, together, statements } = await aloneAndTogether(paths);
    expect(together).toEqual(alone);
    expect(alone.filter(([status]) => status === 200)).toHaveLength(tokenIds.length + WORDS.length);
    // One statement per table.
    expect(statements).toHaveLength(2);
    expect(statements.every(batched)).toBe(true);
    for (const [i, w] of WORDS.entries()) {
      expect(JSON.parse(together[tokenIds.length + i]![2])).toEqual({ word: w, note: w });
    }
  });

  it("send a lone read's own statement when a read is alone in its turn", async () => {
    const from = sent.length;
    expect((await answer(`/gadgets/${gadgetIds[1]}`))[0]).toBe(200);
    const statements = sent.slice(from);
    expect(statements).toHaveLength(1);
    expect(batched(statements[0]!)).toBe(false);
    expect(statements[0]!.values).toEqual([String(gadgetIds[1])]);
  });

  it(`are split into statements of at most ${MAX_BATCH} keys`, async () => {
    const paths = Array.from({ length: MAX_BATCH + 30 }, (_, i) => `/gadgets/${gadgetIds[i % gadgetIds.length]}`);
    const from = sent.length;
    const together = await Promise.all(paths.map(answer));
    expect(together.every(([status]) => status === 200)).toBe(true);
    const statements = sent.slice(from);
    expect(statements).toHaveLength(2);
    expect(statements.every(batched)).toBe(true);
  });

  it("fail each read of a statement the database refused with a 503 problem document", async () => {
    refuse = (stmt) =>
      batched(stmt) ? Object.assign(new Error("terminating connection"), { code: "57P01" }) : undefined;
    try {
      const answers = await Promise.all(gadgetIds.slice(0, 5).map((id) => client.get(`/gadgets/${id}`)));
      expect(answers.map((a) => a.status)).toEqual(Array(5).fill(503));
      for (const a of answers) expect(a.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    } finally {
      refuse = undefined;
    }
    // The next turn is not affected.
    const again = await Promise.all(gadgetIds.slice(0, 5).map((id) => client.get(`/gadgets/${id}`)));
    expect(again.map((a) => a.status)).toEqual(Array(5).fill(200));
  });
});

describe("reads under the per-resource concurrency cap", () => {
  it("take one slot per statement, so the reads of a turn are answered together even with one slot", async () => {
    const capped = mounted(service, { db: recording(db.executor), resourceConcurrency: 1 });
    const paths = gadgetIds.map((id) => `/gadgets/${id}`);
    const alone: string[] = [];
    for (const p of paths) alone.push((await capped.get(p)).text);
    const from = sent.length;
    const together = await Promise.all(paths.map((p) => capped.get(p)));
    expect(together.map((a) => a.text)).toEqual(alone);
    const statements = sent.slice(from);
    expect(statements).toHaveLength(1);
    expect(batched(statements[0]!)).toBe(true);
  });
});

describe("reads under a BeforeQuery scope", () => {
  it("keep a statement each, with the scope in it", async () => {
    const scoped = mounted(service, {
      db: recording(db.executor),
      hooks: { beforeQuery: { gadgets: () => cmp("mood", "eq", "calm") } },
    });
    const from = sent.length;
    const answers = await Promise.all(gadgetIds.slice(0, 4).map((id) => scoped.get(`/gadgets/${id}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(4).fill(200));
    const statements = sent.slice(from);
    expect(statements).toHaveLength(4);
    expect(statements.some(batched)).toBe(false);
  });
});
