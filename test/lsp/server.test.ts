/**
 * The language server driven as an editor drives it: a child process over
 * stdio, a real LSP client (test/lsp/client.ts). Diagnostics equal
 * `resc check`'s, hover speaks the reference text, completion offers what
 * the position accepts, definitions and symbols point into the file, and
 * formatting is `resc fmt`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSource } from "../../compiler/index.js";
import { formatSource } from "../../grammar/format/index.js";
import {
  COLUMN_ATTRIBUTE_DOCS,
  RESOURCE_SETTING_DOCS,
  TABLE_ATTRIBUTE_DOCS,
  TYPE_DOCS,
} from "../../grammar/textmate/reference.js";
import { positionOf, TestClient } from "./client.js";

const SCHEMA = `api {
  title = "Tracker"
  security bearerAuth { scheme = "bearer", bearer_format = "JWT" }
}

/// Where a task stands.
enum task_status { todo doing done }

/// A board column.
table lists {
  id       bigint @primary_key @default(identity)
  title    text   @sortable @searchable
  position int    @sortable

  resource "/lists" {
    ops          = [crud, list]
    default_sort = [position]
  }
}

/// A unit of work.
table tasks {
  id         bigint      @primary_key @default(identity)
  list_id    bigint      @ref(list, lists, expandable) @filterable
                         @inverse(tasks, expandable, order: [position], limit: 20)
  status     task_status @default(todo) @filterable @sortable
  position   int         @sortable
  created_at timestamptz @default(now()) @read_only

  @@index([list_id])

  resource "/tasks" {
    ops           = [crud, list]
    default_sort  = [-position]
    max_page_size = 100
    security      = [bearerAuth]
  }
}
`;

const URI = "file:///work/tracker.resource";
let client: TestClient;

beforeAll(async () => {
  client = await TestClient.start();
  await client.open(URI, SCHEMA, 1);
  await client.diagnosticsOf(URI, 1);
}, 60_000);

afterAll(async () => {
  await client?.stop();
});

const at = (needle: string, delta = 1, n = 0) => positionOf(SCHEMA, needle, delta, n);

describe("initialize", () => {
  it("announces the features the server has", () => {
    const caps = client.initialized.capabilities;
    expect(caps.hoverProvider).toBe(true);
    expect(caps.definitionProvider).toBe(true);
    expect(caps.documentSymbolProvider).toBe(true);
    expect(caps.documentFormattingProvider).toBe(true);
    expect(caps.completionProvider?.triggerCharacters).toContain("@");
    expect(client.initialized.serverInfo?.name).toBe("resc");
  });
});

describe("diagnostics as you type", () => {
  const uri = "file:///work/typing.resource";

  it("publishes nothing for a clean schema, then what resc check says after each edit", async () => {
    await client.open(uri, SCHEMA, 1);
    expect(await client.diagnosticsOf(uri, 1)).toEqual([]);

    const typo = SCHEMA.replace("title    text   @sortable", "title    text   @sortabel");
    await client.change(uri, typo, 2);
    const d2 = await client.diagnosticsOf(uri, 2);
    expect(d2.map((d) => [d.code, d.severity, d.source])).toEqual([["unknown-attribute", 1, "resc"]]);
    expect(d2[0]!.message).toContain('Did you mean "@sortable"');
    expect(d2[0]!.range).toEqual({ start: positionOf(typo, "@sortabel"), end: positionOf(typo, "@sortabel", 9) });

    const broken = SCHEMA.replace("  @@index([list_id])\n", "  @@index([list_id]\n");
    await client.change(uri, broken, 3);
    const d3 = await client.diagnosticsOf(uri, 3);
    const check = compileSource(broken, "typing.resource").diagnostics;
    expect(d3.map((d) => d.code)).toEqual(check.map((d) => d.code));
    expect(d3.map((d) => d.message)).toEqual(check.map((d) => d.message));
    expect(d3.length).toBeGreaterThan(0);
  });

  it("reports validator rules and lint warnings too", async () => {
    const text = SCHEMA.replace("position   int         @sortable", "position   int[]       @sortable");
    await client.change(uri, text, 4);
    const d = await client.diagnosticsOf(uri, 4);
    const check = compileSource(text, "typing.resource").diagnostics;
    expect(d.map((x) => x.code)).toEqual(check.map((x) => x.code));
    expect(d.some((x) => x.severity === 1)).toBe(true);
  });
});

describe("hover", () => {
  const hoverText = async (needle: string, delta = 1, n = 0) => {
    const h = await client.hover(URI, at(needle, delta, n));
    const c = h?.contents;
    return typeof c === "object" && c !== null && "value" in c ? c.value : "";
  };

  it("explains column attributes with the reference text", async () => {
    expect(await hoverText("@filterable")).toContain(COLUMN_ATTRIBUTE_DOCS["filterable"]!.summary);
    expect(await hoverText("@inverse")).toContain(COLUMN_ATTRIBUTE_DOCS["inverse"]!.summary);
  });

  it("explains table attributes and resource settings", async () => {
    expect(await hoverText("@@index")).toContain(TABLE_ATTRIBUTE_DOCS["index"]!.summary);
    expect(await hoverText("max_page_size")).toContain(RESOURCE_SETTING_DOCS["max_page_size"]!.summary);
  });

  it("explains built-in types, enums and operations", async () => {
    expect(await hoverText("timestamptz")).toContain(TYPE_DOCS["timestamptz"]!);
    const e = await hoverText("status     task_status", 12);
    expect(e).toContain("Values: `todo`, `doing`, `done`");
    expect(e).toContain("Where a task stands.");
    expect(await hoverText("crud", 1, 1)).toContain("read, create, update and delete");
  });

  it("describes forward and inverse relations by name", async () => {
    const fwd = await hoverText("@ref(list", 5);
    expect(fwd).toContain("Forward relation **list**");
    expect(fwd).toContain("?expand=list");
    const inv = await hoverText("@inverse(tasks", 10);
    expect(inv).toContain("Inverse relation **tasks** on `lists`");
    expect(inv).toContain("at most 20 children");
  });

  it("summarizes columns and tables where they are used", async () => {
    const col = await hoverText("default_sort  = [-position]", 18);
    expect(col).toContain("tasks.position int");
    expect(col).toContain("sortable");
    expect(await hoverText("@ref(list, lists", 12)).toContain("A board column.");
  });

  it("answers nothing on punctuation", async () => {
    expect(await client.hover(URI, at("{", 0))).toBeNull();
  });
});

describe("completion", () => {
  const labels = async (text: string, needle: string, delta: number, version: number) => {
    const uri = `file:///work/complete-${version}.resource`;
    await client.open(uri, text, version);
    return (await client.completion(uri, positionOf(text, needle, delta))).map((i) => i.label);
  };

  it("offers the column attributes not yet used after @", async () => {
    const text = SCHEMA.replace("position   int         @sortable", "position   int         @sortable @");
    const got = await labels(text, "position   int         @sortable @", 34, 1);
    expect(got).toContain("@filterable");
    expect(got).toContain("@ref");
    expect(got).not.toContain("@sortable");
  });

  it("offers table attributes after @@", async () => {
    const text = SCHEMA.replace("  @@index([list_id])", "  @@");
    expect(await labels(text, "  @@\n", 4, 2)).toEqual(
      expect.arrayContaining(["@@index", "@@unique", "@@primary_key", "@@scoped"]),
    );
  });

  it("offers built-in types, enums and domains after a column name", async () => {
    const text = SCHEMA.replace("  created_at timestamptz", "  due_on tim\n  created_at timestamptz");
    const got = await labels(text, "due_on tim", 10, 3);
    expect(got).toEqual(expect.arrayContaining(["timestamptz", "integer", "task_status"]));
  });

  it("offers the sortable columns inside default_sort and the ops names inside ops", async () => {
    const sort = SCHEMA.replace("default_sort  = [-position]", "default_sort  = [-position, ]");
    const got = await labels(sort, "[-position, ]", 12, 4);
    expect(got).toEqual(expect.arrayContaining(["position", "status"]));
    expect(got).not.toContain("list_id");
    const ops = SCHEMA.replace("ops           = [crud, list]", "ops           = [crud, ]");
    expect(await labels(ops, "[crud, ]", 7, 5)).toEqual(expect.arrayContaining(["list", "read", "reads", "delete"]));
  });

  it("offers table names inside @ref and columns inside @@index", async () => {
    const ref = SCHEMA.replace("@ref(list, lists, expandable)", "@ref(list, )");
    expect(await labels(ref, "@ref(list, )", 11, 6)).toEqual(
      expect.arrayContaining(["lists", "tasks", "expandable", "column:"]),
    );
    const index = SCHEMA.replace("@@index([list_id])", "@@index([])");
    expect(await labels(index, "@@index([])", 9, 7)).toEqual(
      expect.arrayContaining(["id", "list_id", "status", "created_at"]),
    );
  });

  it("offers the settings not yet written in a resource block, and keywords at the top level", async () => {
    const res = SCHEMA.replace("    max_page_size = 100\n", "    max_page_size = 100\n    \n");
    const got = await labels(res, "    max_page_size = 100\n    \n", 28, 8);
    expect(got).toEqual(expect.arrayContaining(["max_filters", "default_page_size", "disable_transactions"]));
    expect(got).not.toContain("ops");
    const top = `${SCHEMA}\n`;
    expect(await labels(top, `${SCHEMA}\n`, SCHEMA.length + 1, 9)).toEqual(
      expect.arrayContaining(["table", "enum", "domain", "api", "generate"]),
    );
  });

  it("offers first and last after nulls:", async () => {
    const text = SCHEMA.replace("position int    @sortable", "position int    @sortable(nulls: )");
    expect(await labels(text, "@sortable(nulls: )", 17, 10)).toEqual(["first", "last"]);
  });
});

describe("go to definition", () => {
  it("jumps from a type to its enum, from a reference to its table, from a sort term to its column", async () => {
    const e = await client.definition(URI, at("status     task_status", 12));
    expect(e?.range.start).toEqual(positionOf(SCHEMA, "enum task_status", 0));
    const t = await client.definition(URI, at("@ref(list, lists", 12));
    expect(t?.range.start).toEqual(positionOf(SCHEMA, "table lists", 6));
    const c = await client.definition(URI, at("default_sort  = [-position]", 18));
    expect(c?.range.start).toEqual(positionOf(SCHEMA, "  position   int ", 2));
    const order = await client.definition(URI, at("order: [position]", 9));
    expect(order?.range.start).toEqual(positionOf(SCHEMA, "  position   int ", 2));
  });

  it("jumps from a security requirement to the scheme", async () => {
    const s = await client.definition(URI, at("security      = [bearerAuth]", 17));
    expect(s?.range.start).toEqual(positionOf(SCHEMA, "security bearerAuth", 0));
  });

  it("answers nothing where there is nothing to go to", async () => {
    expect(await client.definition(URI, at("@primary_key", 3))).toBeNull();
  });
});

describe("document symbols", () => {
  it("lists the declarations with their columns and resource", async () => {
    const symbols = await client.symbols(URI);
    expect(symbols.map((s) => s.name)).toEqual(["api", "task_status", "lists", "tasks"]);
    const tasks = symbols.find((s) => s.name === "tasks")!;
    expect(tasks.children?.map((c) => c.name)).toEqual(["id", "list_id", "status", "position", "created_at", "/tasks"]);
    expect(tasks.selectionRange.start).toEqual(positionOf(SCHEMA, "table tasks", 6));
  });
});

describe("formatting", () => {
  it("returns the formatter's output as one edit", async () => {
    const uri = "file:///work/ugly.resource";
    const ugly = "table t {\n id int @primary_key\n   longer text\n}";
    await client.open(uri, ugly, 1);
    const edits = await client.formatting(uri);
    expect(edits).toHaveLength(1);
    const expected = formatSource(ugly);
    expect(expected.ok && edits![0]!.newText).toBe(expected.ok ? expected.text : "");
    expect(edits![0]!.range).toEqual({ start: { line: 0, character: 0 }, end: { line: 3, character: 1 } });
  });

  it("returns no edit for a file that does not parse or is already formatted", async () => {
    const uri = "file:///work/broken.resource";
    await client.open(uri, "table t {\n  id int @primary_key\n", 1);
    expect(await client.formatting(uri)).toEqual([]);
    const pretty = "table t {\n  id int @primary_key\n}\n";
    await client.open("file:///work/pretty.resource", pretty, 1);
    expect(await client.formatting("file:///work/pretty.resource")).toEqual([]);
  });
});

describe("resc lsp --stdio", () => {
  it("runs the same server from the built binary and exits cleanly", async () => {
    const bin = await TestClient.start("bin");
    expect(bin.initialized.capabilities.hoverProvider).toBe(true);
    await bin.open("file:///work/x.resource", "table t {\n  id int @sortabel\n}\n", 1);
    expect((await bin.diagnosticsOf("file:///work/x.resource", 1)).map((d) => d.code)).toEqual(["unknown-attribute"]);
    expect(await bin.stop()).toBe(0);
  });
});
