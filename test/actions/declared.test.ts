/**
 * Declared actions as the language and the runtime define them
 * (docs/decisions/1334-declared-actions.md; docs/language.md, Actions): what
 * the validator refuses, what the formatter keeps, and, against PostgreSQL,
 * a collection action with a declared output, an item action answering its
 * output, scope, and AfterCommit. Pagila's `return` and the tracker's
 * `complete`/`reopen` are tested in test/pagila/actions.test.ts,
 * test/client/live.test.ts and test/cli-tree/binary.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSource } from "../../compiler/index.js";
import { formatSource } from "../../grammar/format/index.js";
import type { CommitEvent, Hooks } from "../../runtime/hooks.js";
import { and, cmp } from "../../runtime/predicate.js";
import { ProblemError } from "../../runtime/problem.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileText, serviceClient, type TestClient } from "../support/service.js";

const TABLE = `
enum state { open shipped }

table orders {
  id     bigint @primary_key @default(identity)
  team   text   @stamped
  state  state  @default(open) @filterable
  total  numeric(8,2)
  secret text?  @hidden

  resource "/orders" {
    ops = [list, read, create]

%ACTIONS%  }
}
`;

/** The actions of {@link SCHEMA}: two item actions, two collection actions, with and without outputs. */
const ACTIONS = `
    /// Ships the order.
    action ship {
      carrier text
      express boolean?
    }

    /// Estimates the delivery; answers its own shape.
    action estimate {} returns { days integer, carrier text? }

    /// Counts the caller's open orders over a total.
    action count_open @collection { over numeric(8,2) } returns { count integer }

    action purge_shipped @collection {}
`;

const SCHEMA = TABLE.replace("%ACTIONS%", ACTIONS.slice(1));

function codes(text: string): string[] {
  const r = compileSource(text, "t.resource");
  return r.diagnostics.filter((d) => d.severity === "error").map((d) => d.code);
}

describe("the language", () => {
  it("parses items, collections, outputs and doc comments into the IR", () => {
    const r = compileSource(SCHEMA, "t.resource");
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const actions = r.schema.tables[0]!.resource!.actions!;
    expect(actions.map((a) => [a.name, a.target, a.input.map((f) => f.name), a.output?.map((f) => f.name)])).toEqual([
      ["ship", "item", ["carrier", "express"], undefined],
      ["estimate", "item", [], ["days", "carrier"]],
      ["count_open", "collection", ["over"], ["count"]],
      ["purge_shipped", "collection", [], undefined],
    ]);
    expect(actions[0]!.doc).toBe("Ships the order.");
    expect(actions[0]!.input[1]).toMatchObject({ name: "express", nullable: true, type: { name: "boolean" } });
  });

  it("refuses what cannot be served, each at its place", () => {
    const wrap = (body: string, extra = "") =>
      `table t {\n  id integer @primary_key\n${extra}  resource "/t" {\n    ops = [read]\n${body}\n  }\n}\n`;
    expect(codes(wrap("    action list {}"))).toEqual(["reserved-action-name"]);
    expect(codes(wrap("    action create_many {}"))).toEqual(["reserved-action-name"]);
    expect(codes(wrap("    action events @collection {}"))).toEqual(["reserved-action-name"]);
    expect(codes(wrap("    action go { a text @hidden }"))).toEqual(["field-attribute"]);
    expect(codes(wrap("    action go { a text  a integer }"))).toEqual(["duplicate-field"]);
    expect(codes(wrap("    action go {}\n    action go {}"))).toEqual(["duplicate-action"]);
    expect(codes(wrap("    action go @item {}"))).toEqual(["unknown-attribute"]);
    expect(codes(wrap("    disable_transactions = true\n    action go {}"))).toEqual(["action-needs-transaction"]);
    const composite = `table t {\n  a integer\n  b integer\n  @@primary_key([a, b])\n  resource "/t" {\n    ops = [list]\n    action go {}\n    action all @collection {}\n  }\n}\n`;
    expect(codes(composite)).toEqual(["action-needs-key"]);
    // A setting or a column may still be called `action` or `returns`: they are soft keywords.
    expect(
      codes(
        `table t {\n  id integer @primary_key\n  action text\n  returns text\n  resource "/t" { ops = [read] }\n}\n`,
      ),
    ).toEqual([]);
  });

  it("is not storage: resc sql writes the same DDL with or without them, so migrations never see them", () => {
    expect(compileText(SCHEMA).ddl).toBe(compileText(TABLE.replace("%ACTIONS%", "")).ddl);
  });

  it("is kept by the formatter: fields aligned, one-line blocks kept on one line", () => {
    const out = formatSource(SCHEMA, "t.resource");
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.text).toContain("    action ship {\n      carrier text\n      express boolean?\n    }\n");
    expect(out.text).toContain("    action count_open @collection { over numeric(8,2) } returns { count integer }\n");
    expect(formatSource(out.text, "t.resource")).toMatchObject({ ok: true, changed: false });
  });
});

describe("serving", () => {
  let db: TestDatabase;
  let client: TestClient;
  const events: CommitEvent[] = [];

  beforeAll(async () => {
    const { service, ddl } = compileText(SCHEMA);
    db = await createTestDatabase("actions_declared");
    await db.executor.script(ddl);
    await db.executor.script(
      "INSERT INTO orders (team, state, total, secret) VALUES ('red', 'open', 10, 's1'), ('red', 'open', 99, 's2'), ('blue', 'open', 500, 's3'), ('red', 'shipped', 7, 's4')",
    );
    const team = (data: Readonly<Record<string, unknown>> | undefined) => String(data?.team ?? "red");
    const hooks: Hooks = {
      beforeQuery: { orders: (ctx) => cmp("team", "eq", team(ctx.data)) },
      beforeCreate: { orders: (ctx, v) => ({ ...v, team: team(ctx.data) }) },
      afterCommit: { orders: (_ctx, e) => void events.push(e) },
      actions: {
        orders: {
          ship: async ({ row, input, update, tx, key }) => {
            if (row?.state === "shipped") throw new ProblemError(409, "conflict", "already shipped");
            expect(row).not.toHaveProperty("secret");
            await update!({ state: "shipped", secret: `via ${String(input.carrier)}` });
            // A write after update(): the answer is read again, so it shows this one too.
            await tx.query({
              text: "UPDATE orders SET total = total + 1 WHERE id = $1::bigint",
              values: [String(key)],
            });
          },
          estimate: ({ row }) => ({ days: Number(row?.total) > 50 ? 1 : 3, carrier: null, ignored: "never served" }),
          count_open: async ({ tx, input, scope }) => {
            expect(scope).toEqual(cmp("team", "eq", "red"));
            const r = await tx.query({
              text: "SELECT count(*)::text AS n FROM orders WHERE team = 'red' AND state = 'open' AND total > $1::numeric",
              values: [String(input.over)],
            });
            return { count: Number(r.rows[0]!.n) };
          },
          purge_shipped: async ({ tx }) => {
            await tx.query({
              text: "DELETE FROM orders WHERE team = 'red' AND state = 'shipped' AND total < 0",
              values: [],
            });
          },
        },
      },
    };
    client = serviceClient(service, db.executor, hooks);
  });
  afterAll(() => db?.drop());

  it("an item action writes the locked row, read-only and hidden columns included, and answers the row without them", async () => {
    const r = await client.request("POST", "/orders/1/ship", { carrier: "post" });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ id: 1, team: "red", state: "shipped", total: "11.00" });
    expect(r.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
    const stored = await db.executor.query({ text: "SELECT secret FROM orders WHERE id = 1", values: [] });
    expect(stored.rows[0]).toEqual({ secret: "via post" });
    expect(events.at(-1)).toMatchObject({ table: "orders", operation: "action", action: "ship", key: 1 });
  });

  it("a row outside the caller's scope is a 404, as a read is", async () => {
    const r = await client.request("POST", "/orders/3/ship", { carrier: "post" });
    expect(r.status).toBe(404);
    const stored = await db.executor.query({ text: "SELECT state::text FROM orders WHERE id = 3", values: [] });
    expect(stored.rows[0]).toEqual({ state: "open" });
  });

  it("answers the declared output only, with no ETag; an action without input takes no body", async () => {
    const r = await client.request("POST", "/orders/2/estimate");
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ days: 1, carrier: null });
    expect(r.headers.get("etag")).toBeNull();
  });

  it("a collection action gets the caller's scope and answers its output; without output, 204", async () => {
    const r = await client.request("POST", "/orders/count_open", { over: "5" });
    expect([r.status, r.body]).toEqual([200, { count: 1 }]);
    const bad = await client.request("POST", "/orders/count_open", { over: "x" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ location: "body.over" });
    const purge = await client.request("POST", "/orders/purge_shipped");
    expect([purge.status, purge.text]).toEqual([204, ""]);
    expect(events.at(-1)).toEqual({ table: "orders", operation: "action", action: "purge_shipped" });
  });

  it("GET /orders/<action name> is still a read of that key (no route collides)", async () => {
    expect((await client.get("/orders/count_open")).status).toBe(400);
    expect((await client.request("GET", "/orders/1/ship")).status).toBe(404);
  });
});
