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
 * The typed client and the command tree generated for the same schema are
 * surfaces too, run after every other cell (each clears its type's table,
 * as `v` is unique): the client creates a row with `v = a`, reads it, lists
 * it with a `where` on `v`, updates `v` to b and runs the action; the CLI
 * (one process per batch of command lines: CLI_BATCH) creates a row with b
 * as a `--v` flag, gets it and lists it with a `--v` filter flag. Each
 * answer must equal the plain HTTP read of the row, numbers compared
 * exactly (exactJson), and each write must store what the same value
 * written by a plain HTTP body stores. Skipped, naming why: the client's
 * update and action where b is a bigint beyond 2^53 (the client reads
 * bigint as a JavaScript number, docs/decisions/0209-json-value-types.md),
 * and list filters where the type has none.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hooks } from "../../runtime/hooks.js";
import { webhookProblems, type WebhookSubscription } from "../../runtime/events/webhooks.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { operatorsFor } from "../../runtime/query/operators.js";
import { writeListItem } from "../../runtime/operators.js";
import { compileText } from "../support/service.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { until } from "../support/until.js";
import { runNode, type RunResult } from "../support/run.js";
import { emitClient, emitCommandTree } from "../../compiler/index.js";
import { camelCase } from "../../compiler/case.js";
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

/**
 * JSON text parsed without losing a number: each number becomes `{ "#": text }`, an integer's text exact (as
 * `BigInt` writes it), any other number's as JavaScript reads it. Comparing two such parses tells a value a
 * client changed (a bigint rounded to a double) from one it only spelled otherwise.
 */
function exactJson(text: string): unknown {
  let out = "";
  for (let i = 0; i < text.length;) {
    const c = text.charAt(i);
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text.charAt(j) !== '"') j += text.charAt(j) === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const token = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i))![0];
      out += JSON.stringify({ "#": /^-?\d+$/.test(token) ? BigInt(token).toString() : String(Number(token)) });
      i += token.length;
    } else {
      out += c;
      i++;
    }
  }
  return JSON.parse(out);
}

/** A value the typed client returned, as {@link exactJson} reads JSON (a `bigint` as its digits). */
function exactValue(value: unknown): unknown {
  return exactJson(
    JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? { "#bigint": v.toString() } : v)).replace(
      /\{"#bigint":"(-?\d+)"\}/g,
      "$1",
    ),
  );
}

/** What the cells call on one resource of the generated typed client (each class has these, typed per table). */
interface ClientResource {
  create(body: object): Promise<Row>;
  get(id: number): Promise<Row>;
  list(query: { where: object }): Promise<{ items: Row[] }>;
  update(id: number, body: object): Promise<Row>;
  echo(id: number, input: object): Promise<Row>;
  delete(id: number): Promise<void>;
}
type Row = Record<string, unknown>;

/**
 * A value as a create flag's text: a scalar as its URL text (a document as JSON); an array's items
 * comma-separated, the flag's plain form, unless an item's text has a comma, then the JSON array.
 */
function flagText(mt: MatrixType, value: Json): string {
  if (!mt.array) return urlText(value);
  const items = (value as Json[]).map(urlText);
  return items.some((t) => t.includes(",") || t.trim() !== t || t === "") ? JSON.stringify(value) : items.join(",");
}

const ROOT = path.resolve(import.meta.dirname, "../..");
/**
 * A main running many command lines, one after the other, each as a binary's main would (`run`, then what
 * `execute` would print and exit with), keeping each one's output and exit code: `batch.ts <commands.json>
 * <results.json>`.
 */
const CLI_BATCH = `import { readFileSync, writeFileSync } from "node:fs";
import { buildCommandTree } from "./commands/index.js";
const [commandsFile, resultsFile] = process.argv.slice(2);
const tree = buildCommandTree();
const results = [];
for (const argv of JSON.parse(readFileSync(commandsFile, "utf8"))) {
  const printed = { code: 0, stdout: "", stderr: "" };
  const writes = [process.stdout.write, process.stderr.write];
  process.stdout.write = (chunk) => ((printed.stdout += chunk), true);
  process.stderr.write = (chunk) => ((printed.stderr += chunk), true);
  try {
    await tree.run(argv);
  } catch (e) {
    printed.code = e?.oclif?.exit ?? 1;
    if (e?.code !== "EEXIT") printed.stderr += String(e?.message ?? e);
  } finally {
    [process.stdout.write, process.stderr.write] = writes;
  }
  results.push(printed);
}
writeFileSync(resultsFile, JSON.stringify(results));
// A failed command sets the exit code; each one's is in the results, and the batch itself succeeded.
process.exitCode = 0;
`;

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
  const { schema, service, ddl } = compileText(schemaText(types), "matrix.resource");
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
  let hooks: Receiver;
  const streams: Stream[] = [];
  /** Per table: the ids of row A (v = a) and row B (v = b). */
  const ids = new Map<string, { a: number; b: number }>();
  /** What went wrong setting a type up (its rows, its webhook), failing that type's cells alone. */
  const failures = new Map<string, string>();
  /** The typed client and command tree of this schema, emitted inside the repository so the tree finds @oclif/core. */
  const generated = mkdtempSync(path.join(ROOT, "test", `.generated-matrix-${kind}-`));
  let client: Record<string, ClientResource>;

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
    const files = [
      ...(await emitClient(schema, "client", service)),
      ...(await emitCommandTree(schema, "commands", { cliName: "matrix", clientDir: "client", service })),
    ];
    for (const f of files) {
      mkdirSync(path.dirname(path.join(generated, f.path)), { recursive: true });
      writeFileSync(path.join(generated, f.path), f.contents);
    }
    writeFileSync(path.join(generated, "batch.ts"), CLI_BATCH);
    hooks = await startReceiver();
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
    const { Client } = (await import(pathToFileURL(path.join(generated, "client/index.ts")).href)) as {
      Client: new (options: { baseURL: string }) => Record<string, ClientResource>;
    };
    client = new Client({ baseURL: served.url });
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
    rmSync(generated, { recursive: true, force: true });
  });

  for (const mt of absent) it.skip(`${mt.label} × every surface: ${mt.sample.noPglite}`, () => {});

  /** `a` (or another value) as one URL value: a whole-array list on an array column. */
  const urlA = (mt: MatrixType, value: Json = mt.a): string => (mt.array ? urlList(value as Json[]) : urlText(value));
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

  /**
   * Deletes every row of `mt`'s table. The client's and the CLI's cells run after every other cell, and each
   * creates a row with `v = a`, which is unique where PostgreSQL allows it.
   */
  const clearTable = async (mt: MatrixType): Promise<void> => {
    const all = await send("GET", `/${mt.table}?per_page=100`);
    if (all.status !== 200) throw new Error(`listing ${mt.table}: ${all.text}`);
    for (const r of all.body.items as { id: number }[]) {
      const gone = await send("DELETE", `/${mt.table}/${r.id}`);
      if (gone.status !== 204) throw new Error(`deleting ${mt.table}/${r.id}: ${gone.text}`);
    }
  };
  /** The row as a plain read serves it, its numbers exact. */
  const wireRow = async (mt: MatrixType, id: unknown): Promise<Row> => {
    const r = await send("GET", `/${mt.table}/${String(id)}`);
    expect(r.status, r.text).toBe(200);
    return exactJson(r.text) as Row;
  };
  /** `v` as the service stores `value` written by a plain HTTP body: what a client's write of it must store. */
  const httpWritten = async (mt: MatrixType, id: unknown, value: Json): Promise<unknown> => {
    const r = await send("PATCH", `/${mt.table}/${String(id)}`, { v: value });
    expect(r.status, r.text).toBe(200);
    return (exactJson(r.text) as Row).v;
  };

  /** Why the typed client cannot carry `mt`'s b: a bigint beyond 2^53, which it reads as a JavaScript number. */
  const clientWhy = (mt: MatrixType): string | undefined =>
    [mt.sample.a, mt.sample.b].some(
      (v) => typeof v === "string" && /^-?\d+$/.test(v) && !Number.isSafeInteger(Number(v)),
    )
      ? "the typed client reads a bigint as a JavaScript number (docs/decisions/0209-json-value-types.md): b = 9007199254740993 comes back as 9007199254740992"
      : undefined;

  for (const mt of types) {
    const api = (): ClientResource => client[camelCase(mt.table)]!;
    const surface = `${mt.label} × client`;
    /** The one row the client made (the table is cleared first). */
    const made = async (): Promise<number> => {
      const all = await listIds(mt, "");
      expect(all, `${surface}: the row the client made`).toHaveLength(1);
      return all[0]!;
    };
    cell(mt, "client create and get", undefined, async () => {
      await clearTable(mt);
      const created = await api().create({ v: mt.a, note: "client" });
      const stored = await wireRow(mt, created.id);
      expect(exactValue(created), `${surface}: create's answer`).toEqual(stored);
      expect(stored.v, `${surface}: create wrote a as HTTP writes it`).toEqual(await httpWritten(mt, created.id, mt.a));
      expect(exactValue(await api().get(created.id as number)), `${surface}: get`).toEqual(
        await wireRow(mt, created.id),
      );
    });
    cell(mt, "client list filter", filterWhy(mt), async () => {
      const id = await made();
      const page = await api().list({ where: { v: eqOp(mt) === "hasdoc" ? { hasdoc: mt.a } : mt.a } });
      expect(
        page.items.map((item) => exactValue(item)),
        `${surface}: list where v = a`,
      ).toEqual([await wireRow(mt, id)]);
    });
    cell(mt, "client update and action", clientWhy(mt), async () => {
      const id = await made();
      const changed = await api().update(id, { v: mt.b });
      const updated = await wireRow(mt, id);
      expect(exactValue(changed), `${surface}: update's answer`).toEqual(updated);
      expect(updated.v, `${surface}: update wrote b as HTTP writes it`).toEqual(await httpWritten(mt, id, mt.b));
      const echoed = await api().echo(id, { p: mt.a });
      const acted = await wireRow(mt, id);
      expect(exactValue(echoed), `${surface}: echo's output`).toEqual({ p: acted.v });
      expect(acted.v, `${surface}: echo wrote a as HTTP writes it`).toEqual(await httpWritten(mt, id, mt.a));
    });
  }

  /** The CLI list's filter flag: v equal to b. */
  const cliFilter = (mt: MatrixType): string => `${eqOp(mt)}.${urlA(mt, mt.b)}`;
  /**
   * What the CLI printed for one type: a create of `v = b` (b is the harder value: beyond 2^53, a duration in
   * ISO form, an offset; an array's b holds a too), a get of that row, a list filtered on `v = b`.
   */
  interface CliRun {
    create: RunResult;
    get?: RunResult;
    list?: RunResult;
    id?: number;
  }
  /**
   * Runs command lines through the tree in one process (CLI_BATCH), as many binaries' runs: a process per
   * command would cost half a second each, a few hundred times.
   */
  const cliBatch = async (name: string, lines: string[][]): Promise<RunResult[]> => {
    const commands = path.join(generated, `${name}.json`);
    const results = path.join(generated, `${name}-results.json`);
    writeFileSync(commands, JSON.stringify(lines));
    const r = await runNode(["--import", "tsx", path.join(generated, "batch.ts"), commands, results], {
      cwd: ROOT,
      env: { MATRIX_BASE_URL: served.url },
      timeout: 120_000,
    });
    if (r.code !== 0) throw new Error(`the CLI batch ${name} exited with ${r.code}: ${r.stderr}${r.stdout}`);
    return JSON.parse(readFileSync(results, "utf8")) as RunResult[];
  };
  /** Every type's CLI run, started by the first CLI cell: every create, then every get and list. */
  let cliRuns: Promise<Map<MatrixType, CliRun>> | undefined;
  const cliRun = async (mt: MatrixType): Promise<CliRun> => {
    cliRuns ??= (async () => {
      for (const t of types) await clearTable(t);
      const creates = await cliBatch(
        "create",
        types.map((t) => [t.table, "create", "--v", flagText(t, t.b), "--note", "cli", "--compact"]),
      );
      const out = new Map<MatrixType, CliRun>();
      const reads: string[][] = [];
      for (const [i, t] of types.entries()) {
        const create = creates[i]!;
        if (create.code !== 0) {
          out.set(t, { create });
          continue;
        }
        const id = (JSON.parse(create.stdout) as { id: number }).id;
        out.set(t, { create, id });
        reads.push([t.table, "get", String(id), "--compact"]);
        if (filterWhy(t) === undefined) reads.push([t.table, "list", "--v", cliFilter(t), "--compact"]);
      }
      const answers = (await cliBatch("read", reads)).values();
      for (const t of types) {
        const run = out.get(t)!;
        if (run.id === undefined) continue;
        run.get = answers.next().value;
        if (filterWhy(t) === undefined) run.list = answers.next().value;
      }
      return out;
    })();
    return (await cliRuns).get(mt)!;
  };
  /** A command's output, which must be the service's JSON: the failure names the command when it is not. */
  const printed = (what: string, r: RunResult | undefined): unknown => {
    expect(r, what).toBeDefined();
    expect([r!.code, r!.stderr], `${what}: exit code and stderr`).toEqual([0, ""]);
    return exactJson(r!.stdout);
  };

  for (const mt of types) {
    const surface = `${mt.label} × CLI`;
    cell(mt, "CLI create and get", undefined, async () => {
      const run = await cliRun(mt);
      const made = printed(`${surface}: create --v ${flagText(mt, mt.b)}`, run.create) as Row;
      const stored = await wireRow(mt, run.id);
      expect(made, `${surface}: create's output`).toEqual(stored);
      expect(printed(`${surface}: get`, run.get), `${surface}: get's output`).toEqual(stored);
      expect(stored.v, `${surface}: create wrote b as HTTP writes it`).toEqual(await httpWritten(mt, run.id, mt.b));
    });
    cell(mt, "CLI list filter", filterWhy(mt), async () => {
      const run = await cliRun(mt);
      const listed = printed(`${surface}: list --v ${cliFilter(mt)}`, run.list) as { items: Row[] };
      expect(
        listed.items.map((r) => r.id),
        `${surface}: list --v ${cliFilter(mt)}`,
      ).toEqual([{ "#": String(run.id) }]);
      const wire = await send("GET", `/${mt.table}?v=${encodeURIComponent(cliFilter(mt))}`);
      expect(listed, `${surface}: list's output`).toEqual(exactJson(wire.text));
    });
  }
});
