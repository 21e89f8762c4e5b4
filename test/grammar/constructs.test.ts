/**
 * Every construct of the language parses to the expected IR
 * (docs/language.md). Assertions are on IR fields, not on the CST.
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { column, inTable, parseClean, table } from "./helpers.js";

describe("top-level blocks", () => {
  it("reads api with a security scheme, commas optional", () => {
    const s = parseClean(`
      api {
        title   = "Task Tracker"
        version = "1.4.0",
        security bearerAuth { scheme = "bearer", bearer_format = "JWT" }
      }`);
    expect(s.api?.title).toBe("Task Tracker");
    expect(s.api?.version).toBe("1.4.0");
    expect(s.api?.securitySchemes).toMatchObject([
      { name: "bearerAuth", type: "http", scheme: "bearer", bearerFormat: "JWT" },
    ]);
  });

  it("reads generate settings into camel-case fields", () => {
    const s = parseClean(
      `generate { dir = "gen" package = "tracker" cli_dir = "cli" cli_name = "tracker" client_dir = "client" }`,
    );
    expect(s.generate).toMatchObject({
      dir: "gen",
      package: "tracker",
      cliDir: "cli",
      cliName: "tracker",
      clientDir: "client",
    });
  });

  it("reads enums with identifier and string values, in order", () => {
    const s = parseClean(`enum mpaa_rating { G PG "PG-13" R "NC-17" }\nenum s { a, b, c, }`);
    expect(s.enums.map((e) => [e.name, e.values])).toEqual([
      ["mpaa_rating", ["G", "PG", "PG-13", "R", "NC-17"]],
      ["s", ["a", "b", "c"]],
    ]);
  });

  it("reads a domain with its base type and check", () => {
    const s = parseClean(`domain year integer @check("VALUE >= 1901 AND VALUE <= 2155")`);
    expect(s.domains).toMatchObject([
      { name: "year", base: { name: "integer", args: [], arrayDims: 0 }, check: "VALUE >= 1901 AND VALUE <= 2155" },
    ]);
  });

  it("does not care about declaration order", () => {
    const s = parseClean(
      `table t { id integer @primary_key  r rating  y year }\nenum rating { a b }\ndomain year int4`,
    );
    const t = table(s, "t");
    expect(column(t, "r").type.name).toBe("rating");
    expect(column(t, "y").type.name).toBe("year");
    expect(s.domains[0]!.base.name).toBe("integer");
  });
});

describe("types", () => {
  const cases: [string, string, number[], number, boolean][] = [
    ["numeric(5,2)", "numeric", [5, 2], 0, false],
    ["character(20)", "character", [20], 0, false],
    ["varchar(50)?", "varchar", [50], 0, true],
    ["text[]?", "text", [], 1, true],
    ["int[][]", "integer", [], 2, false],
    ["double precision", "double precision", [], 0, false],
    ["character varying(10)", "varchar", [10], 0, false],
    ["timestamp with time zone?", "timestamptz", [], 0, true],
    ["timestamp without time zone", "timestamp", [], 0, false],
    ["int", "integer", [], 0, false],
    ["int4", "integer", [], 0, false],
    ["int2", "smallint", [], 0, false],
    ["int8", "bigint", [], 0, false],
    ["bool", "boolean", [], 0, false],
    ["decimal(4,1)", "numeric", [4, 1], 0, false],
    ["char(3)", "character", [3], 0, false],
    ["bpchar", "character", [], 0, false],
    ["float4", "real", [], 0, false],
    ["real", "real", [], 0, false],
    ["float8", "double precision", [], 0, false],
    ["citext", "citext", [], 0, false],
    ["tsvector", "tsvector", [], 0, false],
    ["inet", "inet", [], 0, false],
    ["bytea?", "bytea", [], 0, true],
    ["uuid", "uuid", [], 0, false],
    ["interval", "interval", [], 0, false],
  ];
  it.each(cases)("%s → %s", (written, name, args, dims, nullable) => {
    const c = column(table(parseClean(inTable(`  c ${written}`)), "t"), "c");
    expect(c.type).toMatchObject({ name, args, arrayDims: dims });
    expect(c.nullable).toBe(nullable);
  });

  it("accepts every listed built-in type name", () => {
    const names =
      "smallint integer bigint numeric real text varchar character boolean date time timestamp timestamptz interval uuid json jsonb bytea tsvector inet citext".split(
        " ",
      );
    const s = parseClean(inTable(names.map((n, i) => `  c${i} ${n}`).join("\n") + "\n  d double precision"));
    expect(table(s, "t").columns.map((c) => c.type.name)).toEqual([...names, "double precision"]);
  });

  it("spans the type name and its modifiers, not the nullability mark", () => {
    const s = parseClean(inTable("  price numeric(6,2)? @sortable"));
    const t = column(table(s, "t"), "price").type;
    expect([t.span.line, t.span.column, t.span.endColumn]).toEqual([2, 9, 21]);
  });

  it("continues a multi-word type only on the same line", () => {
    const s = parseClean(inTable("  a timestamp\n  with text"));
    const t = table(s, "t");
    expect(t.columns.map((c) => [c.name, c.type.name])).toEqual([
      ["a", "timestamp"],
      ["with", "text"],
    ]);
  });

  it("leaves an unknown type far from every known name to the validator", () => {
    const r = parse(inTable("  path ltree\n  v vector"), "x.resource");
    expect(r.diagnostics).toEqual([]);
    expect(column(table(r.schema, "t"), "path").type.name).toBe("ltree");
  });
});

describe("column attributes", () => {
  it("sets every flag attribute and records each use with its span", () => {
    const c = column(
      table(
        parseClean(
          inTable("  c text @primary_key @unique @filterable @searchable @hidden @read_only @immutable @soft_delete"),
        ),
        "t",
      ),
      "c",
    );
    expect(c).toMatchObject({
      primaryKey: true,
      unique: true,
      filterable: true,
      searchable: true,
      hidden: true,
      readOnly: true,
      immutable: true,
      softDelete: true,
    });
    expect(c.attributes.map((a) => a.name)).toEqual([
      "primary_key",
      "unique",
      "filterable",
      "searchable",
      "hidden",
      "read_only",
      "immutable",
      "soft_delete",
    ]);
    expect([c.attributes[2]!.span.column, c.attributes[2]!.span.length]).toEqual([31, 11]);
  });

  it("reads @sortable with and without a null placement", () => {
    const t = table(
      parseClean(inTable("  a int @sortable\n  b int? @sortable(nulls: last)\n  c int? @sortable(nulls: first)")),
      "t",
    );
    expect(column(t, "a").sortable).toEqual({});
    expect(column(t, "b").sortable).toEqual({ nulls: "last" });
    expect(column(t, "c").sortable).toEqual({ nulls: "first" });
    expect(column(t, "a").filterable).toBe(false);
  });

  it.each([
    ["0", { kind: "literal", value: 0 }],
    ["-1.5", { kind: "literal", value: -1.5 }],
    [`"x"`, { kind: "literal", value: "x" }],
    ["true", { kind: "literal", value: true }],
    ["false", { kind: "literal", value: false }],
    ["null", { kind: "literal", value: null }],
    ["todo", { kind: "enum-value", value: "todo" }],
    ["identity", { kind: "identity" }],
    ["autoincrement()", { kind: "identity" }],
    ["now()", { kind: "sql", sql: "now()" }],
    ["gen_random_uuid()", { kind: "sql", sql: "gen_random_uuid()" }],
    ["nextval('x_seq')", { kind: "sql", sql: "nextval('x_seq')" }],
    ["nextval('public.a_seq'::regclass)", { kind: "sql", sql: "nextval('public.a_seq'::regclass)" }],
    [`sql("CURRENT_DATE")`, { kind: "sql", sql: "CURRENT_DATE" }],
  ])("@default(%s)", (written, expected) => {
    const c = column(table(parseClean(inTable(`  c text @default(${written})`)), "t"), "c");
    expect(c.default).toEqual(expected);
  });

  it("reads @computed and @check as SQL text", () => {
    const c = column(
      table(parseClean(inTable(`  s text @computed("a || ' ' || b") @check("length(s) > 0")`)), "t"),
      "s",
    );
    expect(c.computed).toBe("a || ' ' || b");
    expect(c.check).toBe("length(s) > 0");
  });

  it("reads @ref with and without expandable and a target column", () => {
    const t = table(
      parseClean(
        inTable(
          "  a int @ref(org, orgs)\n  b int @ref(list, lists, expandable)\n  c int @ref(code, countries, column: iso)",
        ),
      ),
      "t",
    );
    expect(column(t, "a").ref).toMatchObject({ relation: "org", target: "orgs", expandable: false });
    expect(column(t, "a").ref?.targetColumn).toBeUndefined();
    expect(column(t, "b").ref).toMatchObject({ relation: "list", target: "lists", expandable: true });
    expect(column(t, "c").ref).toMatchObject({ relation: "code", target: "countries", targetColumn: "iso" });
  });

  it("reads @inverse with options, over several lines", () => {
    const t = table(
      parseClean(
        inTable(`  list_id bigint @ref(list, lists, expandable) @filterable
                  @inverse(tasks, expandable, order: [position, -id], limit: 20)
  other int @ref(o, others) @inverse(members)`),
      ),
      "t",
    );
    const inv = column(t, "list_id").inverse!;
    expect(inv).toMatchObject({ name: "tasks", expandable: true, limit: 20 });
    expect(inv.order.map((o) => [o.column, o.descending])).toEqual([
      ["position", false],
      ["id", true],
    ]);
    expect(inv.span.line).toBe(3);
    expect(column(t, "list_id").filterable).toBe(true);
    expect(column(t, "other").inverse).toMatchObject({ name: "members", expandable: false, order: [] });
  });
});

describe("table attributes", () => {
  it("reads @@primary_key, @@index, @@unique and @@scoped", () => {
    const t = table(
      parseClean(`table w {
        a int
        b int
        tags text[]
        @@primary_key([a, b])
        @@index([b])
        @@index([tags], using: gin)
        @@index([a, b], unique: true, name: "w_ab")
        @@unique([b, a])
        @@scoped
      }`),
      "w",
    );
    expect(t.primaryKey).toEqual(["a", "b"]);
    expect(t.indexes.map(({ span: _s, ...i }) => i)).toEqual([
      { columns: ["b"], unique: false },
      { columns: ["tags"], using: "gin", unique: false },
      { columns: ["a", "b"], unique: true, name: "w_ab" },
    ]);
    expect(t.uniques).toEqual([["b", "a"]]);
    expect(t.scoped).toBe(true);
  });

  it("takes the primary key from the inline attribute", () => {
    const t = table(parseClean(inTable("  x int\n  id bigint @primary_key")), "t");
    expect(t.primaryKey).toEqual(["id"]);
    expect(t.scoped).toBe(false);
    expect(t.resource).toBeUndefined();
  });
});

describe("resource block", () => {
  it("reads every setting", () => {
    const s = parseClean(`table t {
      id int @primary_key
      summary text @computed("x")
      resource "/things" {
        ops = [crud, list]
        default_sort = [title, -id]
        default_page_size = 25
        max_page_size = 100
        max_filters = 10
        max_sort_terms = 3
        max_offset = 5000
        security = [bearerAuth, oauth: ["read", "write"]]
        disable_transactions = true
        computed = [summary]
      }
    }`);
    const r = table(s, "t").resource!;
    expect(r).toMatchObject({
      path: "/things",
      ops: ["list", "read", "create", "update", "delete"],
      defaultPageSize: 25,
      maxPageSize: 100,
      maxFilters: 10,
      maxSortTerms: 3,
      maxOffset: 5000,
      disableTransactions: true,
      computed: ["summary"],
    });
    expect(r.defaultSort.map((t) => [t.column, t.descending])).toEqual([
      ["title", false],
      ["id", true],
    ]);
    expect(r.security.map((x) => [x.scheme, x.scopes])).toEqual([
      ["bearerAuth", []],
      ["oauth", ["read", "write"]],
    ]);
    expect(Object.keys(r.settingSpans).sort()).toEqual([
      "computed",
      "default_page_size",
      "default_sort",
      "disable_transactions",
      "max_filters",
      "max_offset",
      "max_page_size",
      "max_sort_terms",
      "ops",
      "security",
    ]);
    expect(r.settingSpans["max_offset"]!.line).toBe(11);
  });

  it.each([
    ["[reads]", ["list", "read"]],
    ["[delete, read, list]", ["list", "read", "delete"]],
    ["[crud]", ["read", "create", "update", "delete"]],
    ["[reads, crud, list]", ["list", "read", "create", "update", "delete"]],
    ["[]", []],
  ])("normalizes ops = %s", (written, ops) => {
    const r = table(parseClean(`table t { id int @primary_key\n resource "/t" { ops = ${written} } }`), "t").resource!;
    expect(r.ops).toEqual(ops);
  });

  it("keeps a negative ceiling for the validator, with the value's span", () => {
    const r = table(parseClean(`table t {\n  id int\n  resource "/t" {\n    max_offset = -1\n  }\n}`), "t").resource!;
    expect(r.maxOffset).toBe(-1);
    expect(r.settingSpans["max_offset"]).toMatchObject({ line: 4, column: 18, endColumn: 20 });
    expect(r.disableTransactions).toBe(false);
    expect(r.computed).toBeUndefined();
  });
});

describe("names that collide with keywords", () => {
  it("accepts keywords as table, column, enum and relation names", () => {
    const s = parseClean(`
      table language { name character(20) @primary_key  password text  active bool  position int }
      table table {
        domain text
        resource text
        security text
        enum text
        api int
        generate int
        id int @primary_key @ref(table, language)
      }
      enum domain { table enum }`);
    expect(table(s, "language").columns.map((c) => c.name)).toEqual(["name", "password", "active", "position"]);
    expect(table(s, "table").columns.map((c) => c.name)).toEqual([
      "domain",
      "resource",
      "security",
      "enum",
      "api",
      "generate",
      "id",
    ]);
    expect(column(table(s, "table"), "id").ref).toMatchObject({ relation: "table", target: "language" });
    expect(s.enums[0]).toMatchObject({ name: "domain", values: ["table", "enum"] });
  });

  it("reads a column named domain as a column whatever follows its type (nullable, array, attributes)", () => {
    const s = parseClean(`
      table entries {
        id integer @primary_key
        domain text?
        table text?
        enum int[]
        domain_two text
      }
      table notes {
        id integer @primary_key
        domain text @hidden
      }`);
    expect(table(s, "entries").columns.map((c) => c.name)).toEqual(["id", "domain", "table", "enum", "domain_two"]);
    expect(column(table(s, "entries"), "domain").nullable).toBe(true);
    expect(column(table(s, "notes"), "domain").hidden).toBe(true);
  });

  it("still ends a table missing its brace at a domain declaration", () => {
    const r = parse("table t {\n  id integer @primary_key\ndomain money_amount numeric(10,2)\n", "t.resource");
    expect(r.diagnostics.map((d) => d.code)).toContain("missing-brace");
    expect(r.schema.domains.map((d) => d.name)).toEqual(["money_amount"]);
  });
});

describe("comments and doc comments", () => {
  it("ignores // and /* */ comments", () => {
    const s = parseClean(`/* a\n block */ table t { // trailing\n  id int /* inline */ @primary_key\n}`);
    expect(column(table(s, "t"), "id").primaryKey).toBe(true);
  });

  it("attaches /// lines to the next api, enum, domain, table, column and resource", () => {
    const s = parseClean(`/// The API.
api { title = "x" }
/// States.
enum st { a }
/// A year.
///   Indented.
domain year int
/// Things.
table t {
  /// The key.
  id int @primary_key
  // not a doc comment
  plain int
  /// Exposed.
  resource "/t" { ops = [reads] }
}`);
    expect(s.api?.doc).toBe("The API.");
    expect(s.enums[0]!.doc).toBe("States.");
    expect(s.domains[0]!.doc).toBe("A year.\n  Indented.");
    const t = table(s, "t");
    expect(t.doc).toBe("Things.");
    expect(column(t, "id").doc).toBe("The key.");
    expect(column(t, "plain").doc).toBeUndefined();
    expect(t.resource?.doc).toBe("Exposed.");
  });
});

describe("spans", () => {
  it("points a table's name span at its name and a column span at the column", () => {
    const t = table(parseClean(`\n\ntable films {\n  title text @sortable\n}`), "films");
    expect(t.nameSpan).toMatchObject({
      file: "test.resource",
      line: 3,
      column: 7,
      endLine: 3,
      endColumn: 12,
      length: 5,
    });
    const c = column(t, "title");
    expect(c.span).toMatchObject({ line: 4, column: 3, endColumn: 23 });
  });
});
