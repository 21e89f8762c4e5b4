/**
 * The typed client writes `where` in the URL grammar exactly as the server
 * reads it (docs/decisions/1051-typed-client.md, 0300-filter-syntax.md):
 * each filter the client serializes is parsed by the runtime's own
 * `parseListQuery`, and must give the same predicate tree as the same
 * filter sent as a `?filter=` JSON tree, whose values need no quoting.
 * Random filters over every column type of /tasks (text, enum, smallint,
 * bigint, uuid, numeric, date, text[], jsonb) use values full of the
 * grammar's special characters. The client core is its source module
 * (compiler/backends/client/core/http.ts), whose text every generated client
 * carries (test/golden.test.ts).
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  listParams,
  whereParams,
  writeBody,
  type ColumnCodecs,
} from "../../compiler/backends/client/core/http.js";
import type { TasksWhere } from "../../fixtures/spec/expected/client/types.js";
import type { ServiceDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import type { Predicate } from "../../runtime/predicate.js";
import { parseListQuery } from "../../runtime/query/index.js";
import { filterCodec } from "../../compiler/backends/client/value-types.js";
import { compileFile, compileText } from "../support/service.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** As emitted for /tasks (fixtures/spec/expected/client/index.ts). */
const CODECS: ColumnCodecs = { labels: "plain[]", attrs: "document", due_on: "date" };

let service: ServiceDescriptor;
let tasks: TableDescriptor;

beforeAll(async () => {
  service = (await compileFile(path.join(ROOT, "spec.resource"))).service;
  tasks = service.tables.find((t) => t.name === "tasks")!;
});

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)];
  return { next, int, pick };
}
type Rng = ReturnType<typeof prng>;

/** Pieces that exercise every rule of the value grammar. */
const PIECES = ["a", "B", " ", ",", '"', "(", ")", "\\", "[", "]", "{", "}", ".", "é", "%", "_", "in.", "eq.", "isnull", "'", "+", "&", "="];

function nasty(r: Rng, min = 0): string {
  let s = "";
  const n = r.int(min, 6);
  for (let i = 0; i < n; i++) s += r.pick(PIECES);
  return s;
}

/** A LIKE pattern as the service takes one: a lone escape at the end (refused, as PostgreSQL would) escaped. */
function pattern(text: string): string {
  const run = /\\*$/.exec(text)![0].length;
  return run % 2 === 1 ? text + "\\" : text;
}

function list<T>(r: Rng, make: () => T, min = 1, max = 4): T[] {
  return Array.from({ length: r.int(min, max) }, make);
}

/** One random column filter: [column, filter]. */
function columnFilter(r: Rng): [string, unknown] {
  const enumValues = ["todo", "doing", "blocked", "done"];
  switch (r.int(0, 8)) {
    case 0: {
      const op = r.pick(["bare", "eq", "ne", "gt", "lte", "like", "ilike", "contains", "startswith", "endswith", "in", "nin", "between"]);
      if (op === "bare") return ["title", nasty(r)];
      if (op === "in" || op === "nin") return ["title", { [op]: list(r, () => nasty(r)) }];
      if (op === "between") return ["title", { between: [nasty(r), nasty(r)] }];
      return ["title", { [op]: op === "like" || op === "ilike" ? pattern(nasty(r)) : nasty(r) }];
    }
    case 1: {
      const op = r.pick(["bare", "eq", "ne", "in", "nin", "contains", "gte"]);
      if (op === "bare") return ["status", r.pick(enumValues)];
      if (op === "in" || op === "nin") return ["status", { [op]: list(r, () => r.pick(enumValues)) }];
      if (op === "contains") return ["status", { contains: nasty(r) }];
      return ["status", { [op]: r.pick(enumValues) }];
    }
    case 2: {
      const v = (): number => r.int(-5, 5);
      return ["priority", r.pick([v(), { gt: v(), lte: v() }, { in: list(r, v) }, { between: [v(), v()] }, { ne: v() }])];
    }
    case 3: {
      const v = (): number | bigint => (r.next() < 0.5 ? r.int(1, 9) : BigInt(r.int(1, 9)));
      return ["list_id", r.pick([v(), { gte: v() }, { nin: list(r, v) }])];
    }
    case 4: {
      const uuid = `00000000-0000-4000-8000-00000000010${r.int(0, 9)}`;
      return ["assignee_id", r.pick([uuid, { ne: uuid }, { isnull: true }, { notnull: true }, { in: [uuid, uuid] }])];
    }
    case 5: {
      const v = (): number | string => (r.next() < 0.5 ? r.int(0, 99) / 4 : `${r.int(0, 99)}.${r.int(0, 99)}`);
      return ["estimate", r.pick([v(), { gt: v() }, { isnull: true }, { between: [v(), v()] }])];
    }
    case 6: {
      const day = (): string | Date =>
        r.next() < 0.5 ? `2026-0${r.int(1, 9)}-1${r.int(0, 9)}` : new Date(Date.UTC(2026, r.int(0, 11), r.int(1, 28)));
      return ["due_on", r.pick([day(), { lt: day() }, { notnull: true }, { in: list(r, day) }])];
    }
    case 7: {
      const items = (min: number): string[] => list(r, () => nasty(r), min);
      const op = r.pick(["bare", "eq", "ne", "has", "nhas", "hasany", "hasall", "nhasany", "nhasall"]);
      if (op === "bare") return ["labels", items(0)];
      if (op === "eq" || op === "ne") return ["labels", { [op]: items(0) }];
      if (op === "has" || op === "nhas") return ["labels", { [op]: nasty(r) }];
      return ["labels", { [op]: items(1) }];
    }
    default: {
      const doc: Record<string, unknown> = {};
      for (let i = r.int(1, 3); i > 0; i--) doc[nasty(r, 1)] = r.pick([nasty(r), r.int(0, 9), true, null, [nasty(r)], { k: nasty(r) }]);
      return ["attrs", r.pick([{ hasdoc: doc }, { nhasdoc: doc }, { isnull: true }])];
    }
  }
}

/** A random `where` object of at most `depth` nested groups. */
function where(r: Rng, depth: number): Record<string, unknown> {
  const w: Record<string, unknown> = {};
  for (let i = r.int(1, 3); i > 0; i--) {
    const [column, filter] = columnFilter(r);
    if (w[column] === undefined) w[column] = filter;
  }
  if (depth > 0 && r.next() < 0.6) {
    const g = r.pick(["or", "and", "not"]);
    w[g] = g === "not" ? where(r, depth - 1) : list(r, () => where(r, depth - 1), 1, 3);
  }
  return w;
}

/** The URL text of a scalar, as the JSON tree's string values are read with the URL codec. */
function text(v: unknown): string {
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return String(v);
}

const LIST_OPS = new Set(["in", "nin", "between", "hasany", "hasall", "nhasany", "nhasall"]);

/** The oracle: the same filter as a `?filter=` tree, written without the client's serializer. */
function tree(w: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const [key, value] of Object.entries(w)) {
    if (key === "or") out.push({ op: "or", children: (value as Record<string, unknown>[]).map(conjunction) });
    else if (key === "and") for (const m of value as Record<string, unknown>[]) out.push(...tree(m));
    else if (key === "not") out.push({ op: "not", children: [conjunction(value as Record<string, unknown>)] });
    else {
      const isOps = typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
      const entries: [string, unknown][] = isOps ? Object.entries(value as object) : [["eq", value]];
      for (const [op, v] of entries) {
        if (op === "isnull" || op === "notnull") out.push({ field: key, op });
        else if (op === "hasdoc" || op === "nhasdoc") out.push({ field: key, op, value: v });
        else if (LIST_OPS.has(op) || (key === "labels" && (op === "eq" || op === "ne"))) out.push({ field: key, op, value: (v as unknown[]).map(text) });
        else out.push({ field: key, op, value: text(v) });
      }
    }
  }
  return out;
}

function conjunction(w: Record<string, unknown>): unknown {
  const children = tree(w);
  return children.length === 1 ? children[0] : { op: "and", children };
}

/** Flattens nested conjunctions and orders children, so equal meanings compare equal. */
function normal(p: Predicate | undefined): unknown {
  if (!p) return undefined;
  if (p.kind === "and" || p.kind === "or") {
    const kids = p.children.flatMap((c) => (c.kind === p.kind ? (c as { children: Predicate[] }).children : [c]));
    const normalised = kids.map(normal).sort((a, b) => (JSON.stringify(a, big) < JSON.stringify(b, big) ? -1 : 1));
    return normalised.length === 1 ? normalised[0] : { kind: p.kind, children: normalised };
  }
  if (p.kind === "not") return { kind: "not", child: normal(p.child) };
  return p;
}

function big(_k: string, v: unknown): unknown {
  return typeof v === "bigint" ? `${v}n` : v;
}

function parsed(params: [string, string][]): unknown {
  // Through a real query string, as the server receives it.
  const qs = new URLSearchParams(params).toString();
  return normal(parseListQuery(service, tasks, new URLSearchParams(qs)).where);
}

describe("where → URL grammar", () => {
  it("writes operators, lists, quotes and groups as decision 0300 reads them", () => {
    const w: TasksWhere = {
      title: { in: ["a,b", 'say "hi"', "Alien (1979)", ""], contains: "in.x" },
      status: "todo",
      labels: { hasany: ["x", "y,z"] },
      attrs: { hasdoc: { note: "a,b" } },
      due_on: { gte: new Date(Date.UTC(2026, 0, 2)) },
      or: [{ priority: { gte: 3 } }, { estimate: { isnull: true }, title: '"quoted' }],
      not: { labels: { has: "x" } },
    };
    expect(whereParams(w, CODECS)).toEqual([
      ["title", 'in.("a,b","say \\"hi\\"","Alien (1979)","")'],
      ["title", "contains.in.x"],
      ["status", "eq.todo"],
      ["labels", 'hasany.(x,"y,z")'],
      ["attrs", 'hasdoc.{"note":"a,b"}'],
      ["due_on", "gte.2026-01-02"],
      ["or", '(priority.gte.3,and(estimate.isnull,title.eq."\\"quoted"))'],
      ["not", "(labels.has.x)"],
    ]);
  });

  it("writes the other list parameters in a fixed order", () => {
    expect(
      listParams(
        { where: { status: "done" }, sort: ["-priority", "title"], select: ["title"], expand: ["list", "comments"], search: "50%", page: 2, perPage: 5, count: true },
        CODECS,
      ),
    ).toEqual([
      ["status", "eq.done"],
      ["sort", "-priority,title"],
      ["select", "title"],
      ["expand", "list,comments"],
      ["search", "50%"],
      ["page", "2"],
      ["per_page", "5"],
      ["count", "exact"],
    ]);
    expect(listParams({ select: [], sort: [], search: "" }, CODECS)).toEqual([]);
  });

  it("refuses what the grammar cannot carry, before any request", () => {
    expect(() => whereParams({ attrs: { hasdoc: "x" } as never }, CODECS)).not.toThrow();
    expect(() => whereParams({ attrs: "bare" }, CODECS)).toThrow(/document column takes operators/);
    expect(() => whereParams({ priority: Number.NaN }, CODECS)).toThrow(/finite/);
    expect(() => whereParams({ title: new Date() }, CODECS)).toThrow(/Date is accepted on date and timestamptz/);
    expect(() => whereParams({ or: [{ attrs: { hasdoc: { a: "line\nbreak" } } }] }, CODECS)).toThrow(/inside or\/and\/not/);
    expect(whereParams({ attrs: { hasdoc: { a: "line\nbreak" } } }, CODECS)).toEqual([["attrs", 'hasdoc.{"a":"line\\nbreak"}']]);
    expect(() => whereParams({ or: [{}] }, CODECS)).toThrow(/empty filter/);
  });

  it("is read by the server as the same predicate as the ?filter= tree, for 600 random filters", () => {
    const r = prng(20261121);
    let compared = 0;
    for (let i = 0; i < 600; i++) {
      const w = where(r, 2);
      const url = whereParams(w, CODECS);
      // One tree per top-level member, so both forms nest equally deep.
      const trees = tree(w).map((node): [string, string] => ["filter", JSON.stringify(node)]);
      const outcome = (params: [string, string][]): { ok: unknown } | { refused: string } => {
        try {
          return { ok: parsed(params) };
        } catch (e) {
          return { refused: (e as Error).message };
        }
      };
      const viaTree = outcome(trees);
      const viaUrl = outcome(url);
      if ("refused" in viaTree) {
        // Only the shared nesting limit may refuse a generated filter. A tree's
        // not takes one child, so a negated conjunction nests one level deeper
        // there than in not=(a,b): the URL form may still pass; nothing to compare.
        expect(viaTree.refused, `case ${i}`).toMatch(/nested too deeply/);
        if ("refused" in viaUrl) expect(viaUrl.refused, `case ${i}`).toMatch(/nested too deeply/);
        continue;
      }
      expect(viaUrl, `case ${i}: ${JSON.stringify(url)}`).toEqual(viaTree);
      compared++;
    }
    expect(compared).toBeGreaterThan(400);
  });
});

describe("a jsonb array's filter", () => {
  it("writes each element as JSON, a string element with its quotes, read by the server as the ?filter= tree", () => {
    const { service: docsService } = compileText(`table docs {
  id   bigint @primary_key @default(identity)
  tags jsonb[] @filterable
  @@index([tags], using: gin)
  resource "/docs" { ops = [list] }
}`);
    const docs = docsService.tables.find((t) => t.name === "docs")!;
    expect(filterCodec(docs.columns.find((c) => c.name === "tags")!)).toBe("document[]");
    const codecs: ColumnCodecs = { tags: "document[]" };
    const elements = ["x", { k: "a,b" }, 1];
    const read = (params: [string, string][]) =>
      normal(parseListQuery(docsService, docs, new URLSearchParams(new URLSearchParams(params).toString())).where);
    for (const [op, filter] of [
      ["eq", elements],
      ["hasany", { hasany: elements }],
      ["has", { has: "x" }],
    ] as const) {
      const url = whereParams({ tags: filter }, codecs);
      // The tree takes an element as its JSON text, as the URL does.
      const value = op === "has" ? JSON.stringify("x") : elements.map((e) => JSON.stringify(e));
      expect(read(url), `${op}: ${JSON.stringify(url)}`).toEqual(
        read([["filter", JSON.stringify({ field: "tags", op, value })]]),
      );
    }
    expect(whereParams({ tags: { hasany: elements } }, codecs)).toEqual([
      ["tags", 'hasany.("\\"x\\"","{\\"k\\":\\"a,b\\"}",1)'],
    ]);
    expect(() => whereParams({ tags: { hasall: [undefined] } }, codecs)).toThrow(/expected a JSON document/);
  });
});

describe("bodies with a Date (writeBody)", () => {
  const codecs: ColumnCodecs = { due_on: "date", at: "instant", days: "date[]", attrs: "document" };
  const at = new Date("2026-03-04T21:30:00.5Z");

  it("writes a date column's Date as its UTC day and a timestamptz's as its instant, arrays and rows alike", () => {
    const body = { due_on: at, at, days: [at, "2026-01-01"], title: "x", attrs: { when: "kept" } };
    expect(writeBody(body, codecs)).toEqual({
      due_on: "2026-03-04",
      at: "2026-03-04T21:30:00.500Z",
      days: ["2026-03-04", "2026-01-01"],
      title: "x",
      attrs: { when: "kept" },
    });
    expect(writeBody([{ due_on: at }, { due_on: null }], codecs)).toEqual([{ due_on: "2026-03-04" }, { due_on: null }]);
    // The caller's object is left as it was; a body without a Date is the same object.
    expect(body.due_on).toBe(at);
    const plain = { due_on: "2026-03-04", title: "x" };
    expect(writeBody(plain, codecs)).toBe(plain);
  });

  it("refuses an invalid Date, naming the field", () => {
    expect(() => writeBody({ due_on: new Date("not a date") }, codecs)).toThrow(/body\.due_on: invalid Date/);
  });
});
