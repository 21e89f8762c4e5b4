/**
 * The command tree's pieces in process: the resource descriptions the
 * backend derives from a schema (spec: Command-line client; guarantee 2),
 * the commands and flags built from them (docs/decisions/1052-command-tree.md)
 * and the JSON printing that keeps the service's text. The core is tested
 * as its source module (compiler/backends/cli-tree/core/cli.ts), whose text
 * every generated tree carries (test/golden.test.ts).
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it, vi } from "vitest";
import { HttpClient } from "../../compiler/backends/client/core/http.js";
import {
  createCommandTree,
  formatJson,
  objectMembers,
  type ResourceSpec,
} from "../../compiler/backends/cli-tree/core/cli.js";
import { buildDescriptor, compileSource, resourceSpecs } from "../../compiler/index.js";

function specsOf(text: string): ResourceSpec[] {
  const r = compileSource(text, "t.resource");
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics.map((d) => d.message)));
  return resourceSpecs(buildDescriptor(r.schema));
}

const SCHEMA = `
enum mood { calm "very angry" }
table things {
  id       bigint      @primary_key @default(identity)
  token    text        @filterable @sortable
  all      int?        @filterable
  secret   text?       @hidden
  mood     mood        @default(calm) @filterable
  done     boolean     @default(false)
  stamp    timestamptz @default(now()) @read_only
  fixed    text?       @immutable
  resource "/things" { ops = [crud, list] }
}
table pairs {
  a bigint @ref(thing, things) @filterable
  b bigint @filterable
  @@primary_key([a, b])
  @@index([b])
  resource "/pairs" { ops = [list, create] }
}
table unserved {
  id bigint @primary_key
}
`;

describe("resource descriptions", () => {
  it("derive every operation's vocabulary from the schema, hidden columns nowhere", () => {
    const [things, pairs, ...rest] = specsOf(SCHEMA);
    expect(rest).toEqual([]);
    expect(JSON.stringify(things)).not.toContain("secret");
    expect(things.key).toEqual({ column: "id", type: "bigint" });
    expect(things.list?.filters.map((f) => [f.column, f.type, f.values])).toEqual([
      ["token", "text", undefined],
      ["all", "integer, nullable", undefined],
      ["mood", "mood", ["calm", "very angry"]],
    ]);
    expect(things.list?.filters[1].operators).toEqual([
      "between",
      "eq",
      "gt",
      "gte",
      "in",
      "isnull",
      "lt",
      "lte",
      "ne",
      "neq",
      "nin",
      "notnull",
    ]);
    expect(things.list?.selectable).toEqual(["id", "token", "all", "mood", "done", "stamp", "fixed"]);
    expect(things.create?.fields.map((f) => [f.column, f.codec, f.required ?? false, f.values])).toEqual([
      ["id", "integer", false, undefined],
      ["token", "text", true, undefined],
      ["all", "integer", false, undefined],
      ["mood", "text", false, ["calm", "very angry"]],
      ["done", "boolean", false, ["true", "false"]],
      ["fixed", "text", false, undefined],
    ]);
    expect(things.update?.fields.map((f) => f.column)).toEqual(["token", "all", "mood", "done"]);
    expect(things.update?.nullable).toEqual(["all"]);
    expect(pairs.key).toBeUndefined();
    expect([pairs.get, pairs.update, pairs.delete]).toEqual([undefined, undefined, undefined]);
    expect(pairs.create?.fields.map((f) => [f.column, f.required])).toEqual([
      ["a", true],
      ["b", true],
    ]);
  });
});

describe("commands and flags", () => {
  const tree = createCommandTree({ bin: "things", envPrefix: "THINGS", version: "1.0.0" }, specsOf(SCHEMA));

  it("one command per exposed operation, none for the rest", () => {
    expect(Object.keys(tree.commands).sort()).toEqual([
      "pairs:create",
      "pairs:create-many",
      "pairs:list",
      "things:create",
      "things:create-many",
      "things:delete",
      "things:get",
      "things:list",
      "things:update",
    ]);
  });

  it("spells column flags in kebab-case with the schema spelling as alias; a clash with a fixed flag gets col-", () => {
    const list = tree.commands["things:list"].flags ?? {};
    expect(Object.keys(list)).toEqual(
      expect.arrayContaining(["token", "all", "col-token", "col-all", "mood", "base-url", "compact", "sort", "select"]),
    );
    expect(list["col-token"].description).toMatch(/^Filter on token \(text\)/);
    expect(list["col-all"].description).toMatch(/^Filter on all \(integer, nullable\)/);
    expect(list["token"].description).toMatch(/^Bearer token/);
    expect(list["all"].description).toMatch(/^Follow next_cursor/);
    expect(list["col-all"].aliases).toEqual(["col_all"]);
    const create = tree.commands["things:create"].flags ?? {};
    expect(create["col-token"].required).toBe(true);
    expect((create["mood"] as { options?: string[] }).options).toEqual(["calm", "very angry"]);
    expect(Object.keys(create)).not.toContain("stamp");
    const update = tree.commands["things:update"].flags ?? {};
    expect((update["set-null"] as { options?: string[] }).options).toEqual(["all"]);
    expect(Object.keys(update)).not.toContain("fixed");
  });
});

describe("JSON output", () => {
  /** Random JSON text, numbers written in forms JSON.parse would change. */
  function randomJson(seed: number): string {
    let s = seed;
    const rnd = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const value = (depth: number): string => {
      const k = Math.floor(rnd() * (depth > 2 ? 4 : 6));
      if (k === 0) return JSON.stringify(["a", 'q"\\', "é\n", "{[,:]}", ""][Math.floor(rnd() * 5)]);
      if (k === 1) return ["12345678901234567890", "1.50", "-0", "1e400", "0.1"][Math.floor(rnd() * 5)];
      if (k === 2) return ["true", "false", "null"][Math.floor(rnd() * 3)];
      if (k === 3) return '"text"';
      const n = Math.floor(rnd() * 4);
      if (k === 4) return "[" + Array.from({ length: n }, () => value(depth + 1)).join(" , ") + "]";
      return "{ " + Array.from({ length: n }, (_, i) => `"k${i}" :${value(depth + 1)}`).join(",") + "}";
    };
    return value(0);
  }

  it("re-indents like JSON.stringify(v, null, 2) without touching a value's text", () => {
    for (let i = 1; i <= 300; i++) {
      const text = randomJson(i);
      const pretty = formatJson(text, true);
      const compact = formatJson(text, false);
      expect(JSON.parse(pretty)).toEqual(JSON.parse(text));
      expect(formatJson(compact, true)).toBe(pretty);
      // Same layout as the standard printer, once numbers are read the way it reads them.
      expect(JSON.stringify(JSON.parse(pretty), null, 2)).toBe(JSON.stringify(JSON.parse(text), null, 2));
      if (!/\d/.test(text)) expect(pretty).toBe(JSON.stringify(JSON.parse(text), null, 2));
    }
    expect(formatJson('{"id":12345678901234567890,"n":"1.50","e":[],"o":{}}', true)).toBe(
      '{\n  "id": 12345678901234567890,\n  "n": "1.50",\n  "e": [],\n  "o": {}\n}',
    );
    expect(formatJson('{ "a" : [ 1 , 2 ] }', false)).toBe('{"a":[1,2]}');
  });

  it("reads an object's members as raw text", () => {
    expect(objectMembers('{"items":[{"a":"},"}],"next_cursor":"c,1","total":12345678901234567890}')).toEqual([
      ["items", '[{"a":"},"}]'],
      ["next_cursor", '"c,1"'],
      ["total", "12345678901234567890"],
    ]);
    expect(objectMembers("{}")).toEqual([]);
  });
});

describe("filter help on a document column", () => {
  const tree = createCommandTree(
    { bin: "docs", envPrefix: "DOCS", version: "1.0.0" },
    specsOf(`table notes {
  id    bigint @primary_key
  attrs jsonb  @filterable
  tag   text   @filterable
  resource "/notes" { ops = [list] }
}
`),
  );

  it("offers no bare value on jsonb, which the service refuses, and keeps it elsewhere", () => {
    const list = tree.commands["notes:list"].flags ?? {};
    expect(list["attrs"].description).not.toMatch(/bare value for eq/);
    expect(list["attrs"].description).toMatch(/no bare value: write hasdoc\.<JSON document>/);
    expect(list["tag"].description).toMatch(/or a bare value for eq/);
  });
});

describe("a declared action as a command (docs/decisions/1334-declared-actions.md)", () => {
  it("pagila rentals return 42 --staff-id 1 POSTs the input to /rentals/42/return; the field is a required flag", async () => {
    const text = await readFile("fixtures/pagila/pagila.resource", "utf8");
    const seen: { url: string; method: string; body: string | undefined }[] = [];
    const client = new HttpClient({
      baseURL: "http://pagila.test",
      transport: async (r) => {
        seen.push({ url: r.url, method: r.method, body: r.body });
        return { status: 200, body: '{"rental_id":42}' };
      },
    });
    const specs = specsOf(text);
    const tree = createCommandTree({ bin: "pagila", envPrefix: "PAGILA", version: "1.0.0" }, specs, { client });
    const command = tree.commands["rentals:return"];
    expect(command.summary).toBe("Records that the DVD came back, now (POST /rentals/{id}/return).");
    expect(command.flags?.["staff-id"]).toMatchObject({ required: true });
    const printed: string[] = [];
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      await tree.run(["rentals", "return", "42", "--staff-id", "1", "--compact"]);
    } finally {
      out.mockRestore();
    }
    expect(seen).toEqual([{ url: "http://pagila.test/rentals/42/return", method: "POST", body: '{"staff_id":1}' }]);
    expect(printed.join("")).toBe('{"rental_id":42}\n');
  });
});

describe("credentials and refusals of access rules (docs/decisions/1367-access-rules.md)", () => {
  /** Runs one command line in process; what it printed, the requests' Authorization headers and its exit code. */
  async function runTree(
    argv: string[],
    options: {
      env?: Record<string, string>;
      token?: string | (() => Promise<string>);
      answer?: { status: number; body: string };
    },
  ): Promise<{ code: number; stdout: string; stderr: string; authorization: (string | undefined)[] }> {
    const authorization: (string | undefined)[] = [];
    const client = new HttpClient({
      baseURL: "http://things.test",
      token: options.token,
      transport: async (r) => {
        authorization.push(r.headers["authorization"]);
        return options.answer ?? { status: 200, body: '{"items":[],"per_page":25,"has_more":false}' };
      },
    });
    const tree = createCommandTree({ bin: "things", envPrefix: "THINGS", version: "1.0.0" }, specsOf(SCHEMA), {
      client,
      env: options.env ?? {},
    });
    const stdout: string[] = [];
    const stderr: string[] = [];
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (stdout.push(String(chunk)), true));
    const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    let code = 0;
    try {
      await tree.run(argv);
    } catch (e) {
      const exit = (e as { oclif?: { exit?: number } }).oclif?.exit;
      if (exit === undefined) throw e;
      code = exit;
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    return { code, stdout: stdout.join(""), stderr: stderr.join(""), authorization };
  }

  it("every command takes --token, documented with $<CLI_NAME>_TOKEN", () => {
    const tree = createCommandTree({ bin: "things", envPrefix: "THINGS", version: "1.0.0" }, specsOf(SCHEMA));
    for (const [id, command] of Object.entries(tree.commands)) {
      expect(command.flags?.["token"], id).toBeDefined();
      expect(command.flags?.["token"]?.description, id).toBe("Bearer token; else the client's, else $THINGS_TOKEN.");
    }
  });

  it("sends --token, else the client's (a provider asked per request), else THINGS_TOKEN", async () => {
    const env = { THINGS_TOKEN: "env-token" };
    expect((await runTree(["things", "list"], { env })).authorization).toEqual(["Bearer env-token"]);
    let calls = 0;
    const token = async (): Promise<string> => `provided-${++calls}`;
    expect((await runTree(["things", "list"], { env, token })).authorization).toEqual(["Bearer provided-1"]);
    expect((await runTree(["things", "get", "1"], { env, token })).authorization).toEqual(["Bearer provided-2"]);
    expect((await runTree(["things", "list", "--token", "flag-token"], { env, token })).authorization).toEqual([
      "Bearer flag-token",
    ]);
    expect(calls).toBe(2);
  });

  it.each([
    [401, "/problems/unauthorized", "The bearer token was refused.", "header.authorization", "refused"],
    [403, "/problems/forbidden", "Your role may not delete on /things.", "request", "not granted to viewer"],
  ])(
    "a %i prints the problem on stderr, nothing on stdout, and exits 1",
    async (status, type, detail, location, why) => {
      const body = JSON.stringify({ type, title: "x", status, detail, errors: [{ location, detail: why }] });
      const r = await runTree(["things", "delete", "1"], { token: "expired", answer: { status, body } });
      expect(r).toEqual({
        code: 1,
        stdout: "",
        stderr: `Error: ${detail} (HTTP ${status})\n${location}: ${why}\n`,
        authorization: ["Bearer expired"],
      });
    },
  );
});
