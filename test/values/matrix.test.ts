/**
 * Every type against every surface (docs/decisions/1358-values-through-codecs.md):
 * a value of any column type goes in and out of each feature through the
 * column's codec, so none can make a feature unserializable or answer
 * another row. The schema is generated from the language's built-in type
 * table (test/values/samples.ts): one table per type (and per array of
 * it), each with a nullable unique, filterable, sortable column `v` where
 * PostgreSQL allows it, an item action taking and returning that type, a
 * change feed and a webhook. One database and one service per backend
 * (PostgreSQL, or what test/support/db.ts finds; and PGlite); every cell
 * runs against them and is named `<type> × <surface>`.
 *
 * Not yet here: the typed client's and the CLI's round trip of each type
 * (generate the client and the command tree for this schema, write and read
 * each value through them). test/client/live.test.ts covers the client on
 * the tracker's types only.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hooks } from "../../runtime/hooks.js";
import { webhookProblems, type WebhookSubscription } from "../../runtime/events/webhooks.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { operatorsFor } from "../../runtime/query/operators.js";
import { writeListItem } from "../../runtime/operators.js";
import { compileText } from "../support/service.js";
import { openStream, serveService, type Served, type Stream } from "../support/sse.js";
import {
  BUILTIN_SAMPLES,
  USER_TYPES,
  builtinTypeNames,
  matrixTypes,
  urlList,
  urlText,
  type Json,
  type MatrixType,
} from "./samples.js";

const SECRET = "whsec_" + Buffer.from("the matrix's webhook secret").toString("base64");

/** What a type's column can do in PostgreSQL, with the reason when it cannot. */
interface Abilities {
  /** `@filterable` (arrays need a GIN operator class). */
  filter?: string;
  /** Equality operators (`eq`, `in`), a unique key. */
  equality?: string;
  /** `@sortable`, `gte`. */
  order?: string;
}

function abilities(mt: MatrixType): Abilities {
  const s = mt.sample;
  const out: Abilities = {};
  if (mt.array && s.noArray) out.filter = s.noArray;
  if (s.noEquality) out.equality = out.order = s.noEquality;
  if (s.noOrder) out.order = s.noOrder;
  if (mt.array) out.order ??= "the language refuses @sortable on an array column";
  return out;
}

function tableText(mt: MatrixType): string {
  const can = abilities(mt);
  const attrs = [
    can.filter === undefined ? "@filterable" : "",
    can.equality === undefined ? "@unique" : "",
    can.order === undefined ? "@sortable" : "",
  ].join(" ");
  return `table ${mt.table} {
  id   bigint @primary_key @default(identity) @filterable
  v    ${mt.type}? ${attrs}
  note text?
  ${mt.array && can.filter === undefined ? "@@index([v], using: gin)" : ""}
  resource "/${mt.table}" {
    ops    = [crud, list]
    events = true
    action echo {
      p ${mt.type}?
    } returns {
      p ${mt.type}?
    }
  }
}`;
}

/** The schema of one backend: the declared user types, then a table per matrix type the backend has. */
function schemaText(types: readonly MatrixType[]): string {
  return [USER_TYPES.mood.declaration, USER_TYPES.positive.declaration, ...types.map(tableText)].join("\n\n") + "\n";
}

/** Each table's action: writes the input to the locked row and returns it as the output, unchanged. */
function echoHooks(types: readonly MatrixType[]): Hooks {
  const actions: NonNullable<Hooks["actions"]> = {};
  for (const mt of types)
    actions[mt.table] = {
      echo: async (ctx) => {
        await ctx.update!({ v: ctx.input.p! });
        return { p: ctx.input.p };
      },
    };
  return { actions };
}

/** A webhook receiver keeping every body it is sent, by the resource in its `type`. */
async function receiver(): Promise<{
  url: string;
  got: { type: string; data: any }[];
  close(): Promise<void>;
}> {
  const got: { type: string; data: any }[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      got.push(JSON.parse(body) as { type: string; data: unknown });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function until<T>(what: string, f: () => T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

const ALL = matrixTypes();

/** A value of `mt` that is neither a nor b: null, or the sample's third value where the column cannot be null (serials). */
const leaving = (mt: MatrixType): Json => (mt.array ? null : (mt.sample.c ?? null));

it("every built-in type of the language has samples in the matrix", () => {
  const missing = builtinTypeNames().filter((n) => BUILTIN_SAMPLES[n] === undefined);
  expect(missing, "add samples for these types to test/values/samples.ts").toEqual([]);
});

const backends: [string, "pg" | "pglite"][] = [
  ["PostgreSQL", "pg"],
  ["PGlite", "pglite"],
];

describe.each(backends)("the type matrix on %s", (_name, kind) => {
  const types = ALL.filter((mt) => kind !== "pglite" || !mt.sample.noPglite);
  const absent = ALL.filter((mt) => !types.includes(mt));
  const { service, ddl } = compileText(schemaText(types), "matrix.resource");
  /** The operators the runtime's vocabulary gives column `v` of `mt`'s table. */
  const opsOf = (mt: MatrixType): readonly string[] => {
    const col = service.tables.find((t) => t.name === mt.table)!.columns.find((c) => c.name === "v")!;
    return operatorsFor(col);
  };
  /** Why `op` is not a cell of `mt`: the vocabulary does not give it to the column's kind. */
  const opWhy = (mt: MatrixType, op: string): string | undefined =>
    opsOf(mt).includes(op) ? undefined : `the vocabulary gives this kind no ${op} (runtime/query/operators.ts)`;
  /** The equality test of `mt`: `eq`, or `hasdoc` on a document. */
  const eqOp = (mt: MatrixType): string => (opsOf(mt).includes("eq") ? "eq" : "hasdoc");
  let db: TestDatabase;
  let served: Served;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  const streams: Stream[] = [];
  /** Per table: the ids of row A (v = a) and row B (v = b). */
  const ids = new Map<string, { a: number; b: number }>();
  /** What went wrong setting a type up (its rows, its webhook), failing that type's cells alone. */
  const failures = new Map<string, string>();

  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(served.url + path, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return {
      status: r.status,
      headers: r.headers,
      text,
      body: parsed,
    } as Answer;
  };
  const listIds = async (mt: MatrixType, query: string): Promise<number[]> => {
    const r = await send("GET", `/${mt.table}?${query}`);
    expect(r.status, r.text).toBe(200);
    return (r.body.items as { id: number }[]).map((row) => row.id).sort((x, y) => x - y);
  };

  beforeAll(async () => {
    const prev = process.env.RESC_TEST_PGLITE;
    if (kind === "pglite") process.env.RESC_TEST_PGLITE = "1";
    try {
      db = await createTestDatabase("type_matrix");
    } finally {
      if (prev === undefined) delete process.env.RESC_TEST_PGLITE;
      else process.env.RESC_TEST_PGLITE = prev;
    }
    await db.executor.script(ddl);
    hooks = await receiver();
    const wanted: WebhookSubscription[] = types.map((mt) => ({
      name: `w_${mt.table}`,
      table: mt.table,
      url: hooks.url,
      secret: SECRET,
      ...(abilities(mt).filter === undefined && abilities(mt).equality === undefined ? { filter: eqQuery(mt) } : {}),
    }));
    // A subscription the service refuses would keep everything from mounting: its own cell fails instead.
    const subscriptions = wanted.filter((w) => {
      const refused = webhookProblems(service, [w]);
      if (refused.length > 0) failures.set(`webhook ${w.table}`, refused.join("; "));
      return refused.length === 0;
    });
    served = await serveService(service, {
      db: db.executor,
      hooks: echoHooks(types),
      events: { pollMs: 100, heartbeatMs: 1000 },
      webhooks: {
        subscriptions,
        pollMs: 100,
        retryBaseMs: 50,
        timeoutMs: 2000,
      },
    });
    for (const mt of types) {
      const a = await send("POST", `/${mt.table}`, { v: mt.a, note: "A" });
      const b = await send("POST", `/${mt.table}`, { v: mt.b, note: "B" });
      if (a.status !== 201 || b.status !== 201) failures.set(mt.table, `creating rows: ${a.text} ${b.text}`);
      else ids.set(mt.table, { a: a.body.id, b: b.body.id });
    }
  }, 120_000);
  afterAll(async () => {
    for (const s of streams) s.close();
    await served?.close();
    await hooks?.close();
    await db?.drop();
  });

  for (const mt of absent) it.skip(`${mt.label} × every surface: ${mt.sample.noPglite}`, () => {});

  /** `a` as one URL value: a whole-array list on an array column. */
  const urlA = (mt: MatrixType): string => (mt.array ? urlList(mt.a as Json[]) : urlText(mt.a));
  /** `v=eq.<a>` in the URL grammar (`hasdoc` on a document). */
  function eqQuery(mt: MatrixType): string {
    return `v=${eqOp(mt)}.${encodeURIComponent(urlA(mt))}`;
  }

  /** A cell, or its explicit skip naming why the type cannot have it. */
  function cell(mt: MatrixType, surface: string, why: string | undefined, body: () => Promise<void>): void {
    if (why !== undefined) it.skip(`${mt.label} × ${surface}: ${why}`, () => {});
    else it(`${mt.label} × ${surface}`, body, 30_000);
  }
  const filterWhy = (mt: MatrixType): string | undefined => abilities(mt).filter ?? abilities(mt).equality;

  for (const mt of types) {
    const can = abilities(mt);
    const row = () => {
      const got = ids.get(mt.table);
      if (!got) throw new Error(`${mt.label}: ${failures.get(mt.table)}`);
      return got;
    };

    cell(mt, "list filter eq", filterWhy(mt), async () => {
      expect(await listIds(mt, eqQuery(mt))).toEqual([row().a]);
    });
    cell(
      mt,
      mt.array ? "list filter hasany" : "list filter in",
      filterWhy(mt) ?? opWhy(mt, mt.array ? "hasany" : "in"),
      async () => {
        const list = encodeURIComponent(urlList(mt.array ? [mt.sample.b] : [mt.a, mt.b]));
        expect(await listIds(mt, `v=${mt.array ? "hasany" : "in"}.${list}`)).toEqual(
          mt.array ? [row().b] : [row().a, row().b],
        );
      },
    );
    if (!mt.array)
      cell(mt, "list filter gte", filterWhy(mt) ?? opWhy(mt, "gte"), async () => {
        expect(await listIds(mt, `v=gte.${encodeURIComponent(urlText(mt.b))}`)).toEqual([row().b]);
      });
    cell(mt, "JSON filter tree", filterWhy(mt), async () => {
      const tree = {
        op: "or",
        children: [{ field: "v", op: eqOp(mt), value: mt.a }],
      };
      expect(await listIds(mt, `filter=${encodeURIComponent(JSON.stringify(tree))}`)).toEqual([row().a]);
    });
    cell(mt, "keyset cursor", can.order, async () => {
      for (const [sort, order] of [
        ["v", [row().a, row().b]],
        ["-v", [row().b, row().a]],
      ] as const) {
        const first = await send("GET", `/${mt.table}?sort=${sort}&per_page=1`);
        expect(first.status, first.text).toBe(200);
        expect(first.body.items.map((r: { id: number }) => r.id)).toEqual([order[0]]);
        const next = await send("GET", `/${mt.table}?sort=${sort}&per_page=1&cursor=${first.body.next_cursor}`);
        expect(next.status, next.text).toBe(200);
        expect(next.body.items.map((r: { id: number }) => r.id)).toEqual([order[1]]);
      }
    });
    cell(mt, "ETag / If-Match", undefined, async () => {
      const read = await send("GET", `/${mt.table}/${row().a}`);
      expect(read.status, read.text).toBe(200);
      const tag = read.headers.get("etag")!;
      expect(tag).toMatch(/^"/);
      const changed = await send("PATCH", `/${mt.table}/${row().a}`, { note: "tagged" }, { "if-match": tag });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body.v).toEqual(read.body.v);
      const again = await send("GET", `/${mt.table}/${row().a}`);
      expect(again.headers.get("etag")).toBe(changed.headers.get("etag"));
      const stale = await send("PATCH", `/${mt.table}/${row().a}`, { note: "stale" }, { "if-match": tag });
      expect(stale.status, stale.text).toBe(412);
    });
    cell(mt, "upsert conflict", can.equality, async () => {
      const one = await send(
        "POST",
        `/${mt.table}?on_conflict=v`,
        { v: mt.a, note: "upserted" },
        { prefer: "resolution=merge-duplicates" },
      );
      expect(one.status, one.text).toBe(200);
      expect(one.body.id).toBe(row().a);
      // Two distinct values in one request are two rows, never "the same key twice".
      const both = await send(
        "POST",
        `/${mt.table}?on_conflict=v`,
        [
          { v: mt.a, note: "both" },
          { v: mt.b, note: "both" },
        ],
        { prefer: "resolution=merge-duplicates" },
      );
      expect(both.status, both.text).toBe(200);
      expect(both.body.map((r: { id: number }) => r.id)).toEqual([row().a, row().b]);
    });
    cell(mt, "idempotency replay", undefined, async () => {
      const key = { "idempotency-key": `matrix-${mt.table}` };
      const first = await send("PATCH", `/${mt.table}/${row().b}`, {
        note: "before keyed",
      });
      expect(first.status).toBe(200);
      // A keyed create of a row whose v is the value itself, replayed: the identical body, nothing written twice.
      const body = { v: leaving(mt), note: `keyed ${mt.label}` };
      const made = await send("POST", `/${mt.table}`, body, key);
      expect(made.status, made.text).toBe(201);
      const replay = await send("POST", `/${mt.table}`, body, key);
      expect(replay.status).toBe(201);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.text).toBe(made.text);
      expect((await send("DELETE", `/${mt.table}/${made.body.id}`)).status).toBe(204);
      // A keyed action taking the value: replayed identically too.
      const actionKey = { "idempotency-key": `matrix-action-${mt.table}` };
      const acted = await send("POST", `/${mt.table}/${row().b}/echo`, { p: mt.b }, actionKey);
      expect(acted.status, acted.text).toBe(200);
      const actedAgain = await send("POST", `/${mt.table}/${row().b}/echo`, { p: mt.b }, actionKey);
      expect(actedAgain.headers.get("idempotent-replayed")).toBe("true");
      expect(actedAgain.text).toBe(acted.text);
    });
    cell(mt, "action input and output", undefined, async () => {
      const before = await send("GET", `/${mt.table}/${row().a}`);
      const r = await send("POST", `/${mt.table}/${row().a}/echo`, { p: mt.a });
      expect(r.status, r.text).toBe(200);
      // The output carries the value as a row does: the same JSON a read of the row gives for v.
      expect(r.body).toEqual({ p: before.body.v });
      const after = await send("GET", `/${mt.table}/${row().a}`);
      expect(after.body.v).toEqual(before.body.v);
    });
    cell(mt, "feed filter on both row images", filterWhy(mt), async () => {
      // A document is written bare inside a group (its brackets protect its commas), as the typed client writes it.
      const queries = [
        eqQuery(mt),
        `or=(${encodeURIComponent(`v.${eqOp(mt)}.${mt.array || eqOp(mt) === "hasdoc" ? urlA(mt) : writeListItem(urlA(mt))}`)},id.eq.0)`,
        `id=eq.${row().a}`,
        ...(opWhy(mt, "in") === undefined ? [`v=in.${encodeURIComponent(urlList([mt.a]))}`] : []),
        ...(opWhy(mt, "gte") !== undefined
          ? []
          : [`v=gte.${encodeURIComponent(urlText(mt.a))}&v=lt.${encodeURIComponent(urlText(mt.b))}`]),
      ];
      const opened: Stream[] = [];
      for (const q of queries) {
        const st = await openStream(`${served.url}/${mt.table}/events?${q}`);
        streams.push(st);
        expect(st.status, `${q}: ${JSON.stringify((st as { body?: unknown }).body)}`).toBe(200);
        opened.push(st);
      }
      // Let each stream's subscription be placed before the writes it must see.
      await new Promise((r) => setTimeout(r, 300));
      const before = await send("GET", `/${mt.table}/${row().a}`);
      const away = await send("PATCH", `/${mt.table}/${row().a}`, { v: leaving(mt) });
      expect(away.status, away.text).toBe(200);
      const leavingRead = away.body.v;
      const back = await send("PATCH", `/${mt.table}/${row().a}`, { v: mt.a });
      expect(back.status, back.text).toBe(200);
      expect(back.body.v).toEqual(before.body.v);
      for (const [i, st] of opened.entries()) {
        // Changes committed just before the stream was placed may come first: the last two must be these two.
        const q = queries[i]!;
        const leaves = q.startsWith("id=") ? "update" : "leave";
        const first = leaves === "leave" ? { id: row().a } : { ...back.body, v: leavingRead };
        await until(`${q}: the ${leaves} and the update back to a`, () => {
          const [x, y] = st.messages.slice(-2);
          return (
            x?.event === leaves &&
            JSON.stringify(x.data) === JSON.stringify(first) &&
            y?.event === "update" &&
            JSON.stringify(y.data) === JSON.stringify(back.body)
          );
        }).catch((e: Error) => {
          throw new Error(`${e.message}; got ${JSON.stringify(st.messages)}`);
        });
        st.close();
      }
    });
    cell(mt, "webhook payload", undefined, async () => {
      // The feed cell's two updates of row A (or this cell's own, when the type is not filterable).
      if (filterWhy(mt) !== undefined) {
        expect((await send("PATCH", `/${mt.table}/${row().a}`, { v: leaving(mt) })).status).toBe(200);
        expect((await send("PATCH", `/${mt.table}/${row().a}`, { v: mt.a })).status).toBe(200);
      }
      const refused = failures.get(`webhook ${mt.table}`);
      if (refused !== undefined) throw new Error(`${mt.label}: the webhook's filter is refused: ${refused}`);
      const current = await send("GET", `/${mt.table}/${row().a}`);
      const got = await until(`a webhook carrying ${mt.table}'s row A as it is`, () =>
        hooks.got.find(
          (h) =>
            h.type === `${mt.table}.update` &&
            h.data.id === row().a &&
            JSON.stringify(h.data.v) === JSON.stringify(current.body.v),
        ),
      );
      expect(got.data.v).toEqual(current.body.v);
      // Filtered by v: the update to the other value left the subscription's rows.
      if (filterWhy(mt) === undefined)
        await until(`a webhook saying ${mt.table}'s row A left`, () =>
          hooks.got.some((h) => h.type === `${mt.table}.leave` && h.data.id === row().a),
        );
    });
  }
});
