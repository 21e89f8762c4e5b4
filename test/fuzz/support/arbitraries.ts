/**
 * fast-check generators of hostile requests, built from the real
 * vocabulary of a service (its resources, columns, operators, relations,
 * reserved parameters) mixed with garbage: quotes, parentheses, percent
 * signs, NUL, lone surrogates, huge numbers and long texts, repeated
 * parameters, broken percent-encoding. Half-valid requests matter most:
 * they pass the decoder and reach the SQL compiler and PostgreSQL.
 */
import fc from "fast-check";
import type { ColumnDescriptor, ServiceDescriptor, TableDescriptor } from "../../../runtime/descriptor.js";
import { operatorsFor } from "../../../runtime/query/index.js";
import { canonicalOperator, valueShape } from "../../../runtime/query/operators.js";
import { RESERVED_PARAMETERS } from "../../../runtime/query/index.js";
import { vocabulary } from "../../../runtime/query/vocabulary.js";
import type { RawRequest } from "./http.js";
import { OPERATOR_ALIASES, OPERATOR_VALUES } from "../../../runtime/operators.js";

/** Texts that have broken parsers, quoting and encodings before. */
export const HOSTILE: readonly string[] = [
  "'",
  "''",
  '"',
  '""',
  "\\",
  "%",
  "_",
  "%_%",
  "\\%",
  "'; DROP TABLE film; --",
  "' OR '1'='1",
  "1); SELECT pg_sleep(5); --",
  "$1",
  "$$x$$",
  "::text",
  "(",
  ")",
  "()",
  "((a)",
  "a)",
  ",",
  ",,",
  ".",
  "..",
  "a.b.c",
  "eq.",
  ".eq",
  "\u0000",
  "a\u0000b",
  "\uD800",
  "\uDFFF",
  "é",
  "😀",
  "\u202E",
  "\uFEFF",
  "NaN",
  "Infinity",
  "-Infinity",
  "null",
  "NULL",
  "true",
  "[]",
  "{}",
  '{"a":1}',
  '{"a":',
  "[1,",
  "1e309",
  "-1e309",
  "1e-400",
  "-0",
  "0x1F",
  "1_000",
  " 1",
  "1 ",
  "+1",
  "-1",
  "0",
  "1.5",
  "2147483647",
  "2147483648",
  "-2147483649",
  "32768",
  "9223372036854775808",
  "9".repeat(40),
  "9".repeat(300),
  "0.".padEnd(200, "9"),
  "a".repeat(257),
  "é".repeat(129),
  "x".repeat(5000),
  "\n",
  "\r\n",
  "\t",
  " ",
  "",
  "%00",
  "%zz",
  "%E0%A4",
  "%C0%AF",
  "\\x00",
  "\\x",
  "\\xZZ",
  "infinity",
  "-infinity",
  "epoch",
  "allballs",
  "now",
  "today",
  "0000-00-00",
  "2022-02-30",
  "2022-13-01",
  "2022-02-29",
  "2024-02-29",
  "294277-01-01",
  "5874898-01-01",
  "-4713-01-01",
  "1970-01-01T00:00:00Z",
  "2022-05-24T22:53:30.123456789Z",
  "2022-05-24 22:53:30+25:00",
  "2022-05-24T24:00:00Z",
  "t",
  "f",
  "yes",
  "on",
  "G",
  "PG-13",
  "NC-17",
  "Trailers",
  "Behind the Scenes",
  '"a,b"',
  '"unterminated',
  'a"b',
  "a,b,c",
  "in.a,b",
  "or=(a.eq.1)",
  "&",
  "=",
  "#",
  "?",
  "/",
  "+",
  "%2B",
  "%26",
  "%3D",
];

/** Any text: hostile constants, unicode, ASCII junk, or a long run of one character. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE), weight: 4 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }), weight: 2 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 12 }), weight: 1 },
  { arbitrary: fc.string({ unit: fc.constantFrom(..."()',.\"%_\\=&;:$-+ "), maxLength: 16 }), weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom("a", "é", "%", "9", "(", "\u0000"), fc.integer({ min: 100, max: 3000 }))
      .map(([c, n]) => c.repeat(n)),
    weight: 1,
  },
);

/**
 * JSON text nested deep: around the document limit (100 levels, decision
 * 0901) and far past where recursive code overflows the stack.
 */
export const deepJson: fc.Arbitrary<string> = fc
  .tuple(fc.boolean(), fc.oneof(fc.integer({ min: 95, max: 105 }), fc.integer({ min: 1000, max: 100_000 })))
  .map(([array, d]) => (array ? "[".repeat(d) + "]".repeat(d) : '{"a":'.repeat(d) + "1" + "}".repeat(d)));

const isoDate = fc
  .date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString());

/** A value that plausibly decodes for `col` (its element type for arrays); any text for text columns. */
export function plausibleFor(col: ColumnDescriptor | undefined): fc.Arbitrary<string> {
  const plausible: fc.Arbitrary<string>[] = [];
  switch (col?.kind) {
    case "integer":
    case "bigint":
      plausible.push(fc.integer({ min: -5, max: 20000 }).map(String), fc.bigInt().map(String));
      break;
    case "numeric":
    case "float":
      plausible.push(
        fc.double({ noNaN: false }).map(String),
        fc.integer({ min: 0, max: 9999 }).map((n) => (n / 100).toFixed(2)),
      );
      break;
    case "date":
      plausible.push(isoDate.map((s) => s.slice(0, 10)));
      break;
    case "timestamptz":
    case "timestamp":
      plausible.push(
        isoDate,
        isoDate.map((s) => s.replace("T", " ").replace("Z", "+02:00")),
      );
      break;
    case "boolean":
      plausible.push(fc.constantFrom("true", "false", "t", "f", "TRUE", "1", "0"));
      break;
    case "enum":
      plausible.push(fc.constantFrom(...(col.enumValues ?? ["x"])));
      break;
    default:
      plausible.push(
        fc.string({ unit: "grapheme-ascii", maxLength: 8 }),
        fc.constantFrom("A", "ACADEMY DINOSAUR", "Trailers", "MARY", "love"),
        anyText,
      );
  }
  return fc.oneof(...plausible);
}

/** A value that plausibly decodes for `col`, or hostile text. */
export function valueFor(col: ColumnDescriptor | undefined): fc.Arbitrary<string> {
  return fc.oneof({ arbitrary: plausibleFor(col), weight: 3 }, { arbitrary: anyText, weight: 2 });
}

/** Quotes a value as the filter syntax reads it back (docs/decisions/0300-filter-syntax.md, "Values"). */
export const quote = (s: string): string => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/**
 * A condition the decoder should accept: a filterable column, one of its
 * operators, a value of the operator's shape. Hostile text still rides in
 * text values, patterns and search, so it reaches PostgreSQL as bind
 * parameters.
 */
function validCondition(table: TableDescriptor): fc.Arbitrary<[string, string]> | undefined {
  const cols = vocabulary(table).filterable.map((n) => table.columns.find((c) => c.name === n)!);
  if (cols.length === 0) return undefined;
  return fc.constantFrom(...cols).chain((col) =>
    fc.constantFrom(...operatorsFor(col)).chain((op) => {
      const item = plausibleFor(col).map(quote);
      const shape = valueShape(col, canonicalOperator(op));
      const rhs: fc.Arbitrary<string> =
        shape === "none"
          ? fc.constant("")
          : shape === "list"
            ? fc.array(item, { minLength: 1, maxLength: 5 }).map((xs) => "." + xs.join(","))
            : shape === "pair"
              ? fc.tuple(item, item).map(([a, b]) => `.${a},${b}`)
              : shape === "document"
                ? fc.jsonValue({ maxDepth: 2 }).map((v) => "." + JSON.stringify(v))
                : item.map((v) => "." + v);
      return rhs.map((r): [string, string] => [col.name, op + r]);
    }),
  );
}

/** Parameters a list request on `table` should pass the decoder with: real names, valid shapes, small pages. */
function validParams(table: TableDescriptor): fc.Arbitrary<[string, string][]> {
  const v = vocabulary(table);
  const parts: fc.Arbitrary<[string, string]>[] = [];
  const cond = validCondition(table);
  if (cond) {
    parts.push(cond, cond, cond);
    parts.push(
      fc.tuple(
        fc.constantFrom("or", "and", "not"),
        fc
          .array(
            cond.map(([c, r]) => `${c}.${r}`),
            { minLength: 1, maxLength: 3 },
          )
          .map((xs) => `(${xs.join(",")})`),
      ),
    );
  }
  if (v.sortable.length)
    parts.push(
      fc.tuple(
        fc.constant("sort"),
        fc
          .shuffledSubarray([...v.sortable], { minLength: 1, maxLength: Math.min(3, v.sortable.length) })
          .chain((cs) =>
            fc.tuple(...cs.map((c) => fc.constantFrom(c, "-" + c, c + ".desc"))).map((ts) => ts.join(",")),
          ),
      ),
    );
  parts.push(
    fc.tuple(
      fc.constant("select"),
      fc.subarray([...v.selectable], { minLength: 1 }).map((cs) => cs.join(",")),
    ),
  );
  if (v.searchable.length) parts.push(fc.tuple(fc.constant("search"), plausibleFor(undefined)));
  if (v.expandable.length) parts.push(fc.tuple(fc.constant("expand"), fc.constantFrom(...v.expandable)));
  parts.push(fc.tuple(fc.constant("per_page"), fc.integer({ min: 1, max: 400 }).map(String)));
  parts.push(fc.tuple(fc.constant("page"), fc.integer({ min: 1, max: 30 }).map(String)));
  parts.push(fc.constant<[string, string]>(["count", "exact"]));
  // Parameters that may appear once are kept once, so the request stays acceptable.
  return fc.array(fc.oneof(...parts), { maxLength: 6 }).map((ps) => {
    const seen = new Set<string>();
    return ps.filter(
      ([k]) =>
        !["sort", "select", "search", "per_page", "page", "count"].includes(k) ||
        (!seen.has(k) && seen.add(k) !== undefined),
    );
  });
}

/** Wraps an item in double quotes now and then, as the list syntax allows. */
const maybeQuoted = (a: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof({ arbitrary: a, weight: 4 }, { arbitrary: a.map((s) => `"${s}"`), weight: 1 });

/** The text after `op.` for a column: one value, a list, a pair, a JSON document, or junk. */
function operand(col: ColumnDescriptor | undefined): fc.Arbitrary<string> {
  const one = valueFor(col);
  return fc.oneof(
    { arbitrary: one, weight: 4 },
    { arbitrary: fc.array(maybeQuoted(one), { minLength: 0, maxLength: 6 }).map((xs) => xs.join(",")), weight: 3 },
    {
      arbitrary: fc.integer({ min: 90, max: 130 }).map((n) => Array.from({ length: n }, (_, i) => String(i)).join(",")),
      weight: 1,
    },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null"), weight: 1 },
  );
}

/** The names a request on `table` might use for a column: real ones, hidden ones, junk. */
function columnNames(table: TableDescriptor, service: ServiceDescriptor): fc.Arbitrary<string> {
  const v = vocabulary(table);
  const all = service.tables.flatMap((t) => t.columns.map((c) => c.name));
  const hidden = service.tables.flatMap((t) => t.columns.filter((c) => c.hidden).map((c) => c.name));
  const options: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.constantFrom(...all), weight: 2 },
    { arbitrary: anyText, weight: 1 },
  ];
  if (v.filterable.length) options.push({ arbitrary: fc.constantFrom(...v.filterable), weight: 6 });
  if (hidden.length) options.push({ arbitrary: fc.constantFrom(...hidden), weight: 1 });
  return fc.oneof(...options);
}

/** Every operator spelling, and near misses the grammar must refuse. */
const OPERATOR_SPELLINGS = [
  ...Object.keys(OPERATOR_VALUES),
  ...Object.keys(OPERATOR_ALIASES),
  "EQ",
  "eq ",
  "not",
  "is",
  "",
  "or",
  "any",
];

/** An operator for `col`: mostly one it accepts, sometimes any spelling at all. */
function operatorFor(col: ColumnDescriptor | undefined): fc.Arbitrary<string> {
  const accepted = col ? operatorsFor(col) : [];
  return accepted.length
    ? fc.oneof(
        { arbitrary: fc.constantFrom(...accepted), weight: 4 },
        { arbitrary: fc.constantFrom(...OPERATOR_SPELLINGS), weight: 1 },
      )
    : fc.constantFrom(...OPERATOR_SPELLINGS);
}

/** A column condition as `[column, "op.value"]`, bare value, operator alone, or junk. */
function condition(table: TableDescriptor, service: ServiceDescriptor): fc.Arbitrary<[string, string]> {
  return columnNames(table, service).chain((name) => {
    const col = table.columns.find((c) => c.name === name);
    const rhs = fc.oneof(
      { arbitrary: fc.tuple(operatorFor(col), operand(col)).map(([op, v]) => `${op}.${v}`), weight: 6 },
      { arbitrary: valueFor(col), weight: 2 },
      { arbitrary: operatorFor(col), weight: 1 },
      { arbitrary: anyText, weight: 1 },
    );
    return rhs.map((r): [string, string] => [name, r]);
  });
}

/** A group body `(child,child,...)`, children `col.op.value` or nested `and(…)`, `or(…)`, `not(…)`. */
function groupBody(table: TableDescriptor, service: ServiceDescriptor): fc.Arbitrary<string> {
  const leaf = condition(table, service).map(([c, r]) => `${c}.${r}`);
  const { node } = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      leaf,
      fc
        .tuple(
          fc.constantFrom("and", "or", "not", "AND", "xor", ""),
          fc.array(tie("node"), { minLength: 0, maxLength: 4 }),
        )
        .map(([g, kids]) => `${g}(${kids.join(",")})`),
    ),
  }));
  return fc.oneof(
    { arbitrary: fc.array(node, { minLength: 0, maxLength: 5 }).map((kids) => `(${kids.join(",")})`), weight: 6 },
    { arbitrary: fc.array(node, { minLength: 1, maxLength: 3 }).map((kids) => kids.join(",")), weight: 1 },
    { arbitrary: fc.integer({ min: 2, max: 8 }).map((d) => "(".repeat(d) + "title.eq.x" + ")".repeat(d)), weight: 1 },
    { arbitrary: anyText, weight: 1 },
  );
}

/** A `?filter=` JSON tree: leaves `{field, op, value}`, groups, `not` with any number of children, junk. */
function filterTree(table: TableDescriptor, service: ServiceDescriptor): fc.Arbitrary<string> {
  const names = columnNames(table, service);
  const leaf = names.chain((field) => {
    const col = table.columns.find((c) => c.name === field);
    return fc.record(
      {
        field: fc.oneof(fc.constant(field), fc.jsonValue({ maxDepth: 1 })),
        op: fc.oneof(operatorFor(col), fc.jsonValue({ maxDepth: 1 })),
        value: fc.oneof(valueFor(col), fc.jsonValue({ maxDepth: 2 }), fc.array(valueFor(col), { maxLength: 4 })),
      },
      { requiredKeys: [] },
    );
  });
  const { node } = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      leaf,
      fc.record({ op: fc.constantFrom("and", "or", "not", "nor"), children: fc.array(tie("node"), { maxLength: 4 }) }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  }));
  const deepLeaf = fc
    .tuple(names, fc.constantFrom("eq", "in", "hasdoc", "has", "hasany"), deepJson)
    .map(([field, op, v]) => `{"field":${JSON.stringify(field)},"op":"${op}","value":${v}}`);
  return fc.oneof(
    { arbitrary: node.map((n) => JSON.stringify(n) ?? ""), weight: 5 },
    { arbitrary: deepLeaf, weight: 1 },
    { arbitrary: deepJson, weight: 1 },
    { arbitrary: anyText, weight: 1 },
  );
}

/** Integers and non-integers for page, per_page and offset. */
export const countText: fc.Arbitrary<string> = fc.oneof(
  fc.nat({ max: 300 }).map(String),
  fc.constantFrom(
    "0",
    "-1",
    "1.5",
    "1e3",
    "2147483648",
    "99999999999999999999999",
    "100001",
    "4000",
    "NaN",
    "",
    " 5",
    "0x10",
    "+3",
    "２",
  ),
  anyText,
);

/** A sort parameter value: real sortable columns with directions, other columns, junk. */
function sortValue(table: TableDescriptor, service: ServiceDescriptor): fc.Arbitrary<string> {
  const v = vocabulary(table);
  const names = fc.oneof(...(v.sortable.length ? [{ arbitrary: fc.constantFrom(...v.sortable), weight: 5 }] : []), {
    arbitrary: columnNames(table, service),
    weight: 2,
  });
  const term = fc
    .tuple(
      fc.constantFrom("", "-", "+", "--"),
      names,
      fc.constantFrom("", "", ".asc", ".desc", ".ASC", ".nullsfirst", "."),
    )
    .map(([a, b, c]) => a + b + c);
  return fc.oneof(
    { arbitrary: fc.array(term, { minLength: 0, maxLength: 6 }).map((ts) => ts.join(",")), weight: 5 },
    { arbitrary: anyText, weight: 1 },
  );
}

/** A select parameter value. */
function selectValue(table: TableDescriptor, service: ServiceDescriptor): fc.Arbitrary<string> {
  const v = vocabulary(table);
  const name = fc.oneof(
    { arbitrary: fc.constantFrom(...v.selectable), weight: 5 },
    { arbitrary: columnNames(table, service), weight: 2 },
  );
  return fc.oneof(
    { arbitrary: fc.array(name, { maxLength: 6 }).map((ns) => ns.join(",")), weight: 5 },
    { arbitrary: anyText, weight: 1 },
  );
}

/** An expand parameter value: this table's relations, other names, junk. */
function expandValue(table: TableDescriptor, service: ServiceDescriptor): fc.Arbitrary<string> {
  const relations = service.tables.flatMap((t) => t.relations.map((r) => r.name));
  const own = vocabulary(table).expandable;
  const name = fc.oneof(
    ...(own.length ? [{ arbitrary: fc.constantFrom(...own), weight: 5 }] : []),
    { arbitrary: fc.constantFrom(...relations), weight: 1 },
    { arbitrary: anyText, weight: 1 },
  );
  return fc.array(name, { minLength: 1, maxLength: 4 }).map((ns) => ns.join(","));
}

/**
 * Query parameters of a list request on `table`, in request order: column
 * filters, groups, filter trees, the reserved parameters, junk names, and
 * now and then one parameter repeated many times.
 * @param cursors real `next_cursor` values to send and to mutate
 */
export function listParams(
  table: TableDescriptor,
  service: ServiceDescriptor,
  cursors: readonly string[],
): fc.Arbitrary<[string, string][]> {
  const cursor = fc.oneof(
    anyText,
    fc.base64String({ maxLength: 40 }),
    ...(cursors.length
      ? [
          fc.constantFrom(...cursors),
          fc
            .tuple(fc.constantFrom(...cursors), fc.nat(), fc.string({ unit: "grapheme-ascii", maxLength: 3 }))
            .map(([c, at, s]) => c.slice(0, at % (c.length + 1)) + s + c.slice((at % (c.length + 1)) + 1)),
          fc
            .constantFrom(...cursors)
            .map((c) =>
              Buffer.from(Buffer.from(c, "base64url").toString("utf8").replace(/\d/g, "9"), "utf8").toString(
                "base64url",
              ),
            ),
        ]
      : []),
  );
  const param: fc.Arbitrary<[string, string]> = fc.oneof(
    { arbitrary: condition(table, service), weight: 8 },
    { arbitrary: fc.tuple(fc.constantFrom("or", "and", "not"), groupBody(table, service)), weight: 3 },
    { arbitrary: fc.tuple(fc.constant("filter"), filterTree(table, service)), weight: 2 },
    { arbitrary: fc.tuple(fc.constant("sort"), sortValue(table, service)), weight: 2 },
    { arbitrary: fc.tuple(fc.constant("select"), selectValue(table, service)), weight: 2 },
    { arbitrary: fc.tuple(fc.constant("search"), fc.oneof(anyText, valueFor(undefined))), weight: 2 },
    { arbitrary: fc.tuple(fc.constantFrom("page", "per_page", "offset"), countText), weight: 3 },
    { arbitrary: fc.tuple(fc.constant("cursor"), cursor), weight: 1 },
    { arbitrary: fc.tuple(fc.constant("count"), fc.oneof(fc.constant("exact"), anyText)), weight: 1 },
    { arbitrary: fc.tuple(fc.constant("expand"), expandValue(table, service)), weight: 2 },
    { arbitrary: fc.tuple(fc.constantFrom(...RESERVED_PARAMETERS, "limit", "order", "fields"), anyText), weight: 1 },
  );
  const repeated = fc.tuple(param, fc.integer({ min: 2, max: 40 })).map(([p, n]) => Array.from({ length: n }, () => p));
  return fc.oneof(
    { arbitrary: validParams(table), weight: 6 },
    { arbitrary: fc.array(param, { maxLength: 8 }), weight: 8 },
    { arbitrary: fc.tuple(fc.array(param, { maxLength: 3 }), repeated).map(([a, b]) => [...a, ...b]), weight: 1 },
  );
}

/**
 * Percent-encodes text as UTF-8, except that a lone surrogate (which
 * `encodeURIComponent` refuses) becomes the three bytes a careless encoder
 * would write for it: invalid UTF-8 on the wire, as a hostile client may
 * send.
 */
export function percentEncode(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff)
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((x) => "%" + x.toString(16).toUpperCase())
        .join("");
    else out += encodeURIComponent(ch);
  }
  return out;
}

/**
 * Joins parameters into a query string: properly percent-encoded, raw
 * (whatever `%`, `&`, `+` and `#` then mean), or per parameter either way.
 */
export function queryString(
  params: [string, string][],
  mode: "encoded" | "raw" | "mixed",
  rawFlags: boolean[] = [],
): string {
  const enc = percentEncode;
  return params
    .map(([k, v], i) => {
      const raw = mode === "raw" || (mode === "mixed" && rawFlags[i % Math.max(rawFlags.length, 1)]);
      return raw ? `${k}=${v}` : `${enc(k)}=${enc(v)}`;
    })
    .join("&");
}

/** A GET on a collection of the service, with hostile query parameters. */
export function listRequest(
  service: ServiceDescriptor,
  cursors: ReadonlyMap<string, string[]>,
): fc.Arbitrary<{ req: RawRequest; table: string }> {
  const listed = service.tables.filter((t) => t.resource?.ops.list);
  return fc.constantFrom(...listed).chain((table) =>
    fc
      .tuple(
        listParams(table, service, cursors.get(table.name) ?? []),
        fc.constantFrom<"encoded" | "raw" | "mixed">("encoded", "encoded", "raw", "mixed"),
        fc.array(fc.boolean(), { maxLength: 4 }),
      )
      .map(([params, mode, flags]) => {
        const qs = queryString(params, mode, flags);
        return { req: { method: "GET", path: table.resource!.path + (qs ? "?" + qs : "") }, table: table.name };
      }),
  );
}

/** Ids for an item route: real-looking keys of the type, neighbours of the range, and junk. */
export function idText(table: TableDescriptor): fc.Arbitrary<string> {
  const key = table.columns.find((c) => c.name === table.primaryKey[0]);
  return fc.oneof(
    { arbitrary: valueFor(key), weight: 3 },
    { arbitrary: fc.integer({ min: 0, max: 1100 }).map(String), weight: 3 },
    { arbitrary: anyText, weight: 2 },
  );
}

/** Encodes an id for the path: percent-encoded, or raw (slashes, `%`, `?` then mean what they mean). */
export const encodeId = (id: string, raw: boolean): string => (raw ? id : percentEncode(id));

/** A GET on an item of the service, sometimes with `expand` or other query parameters. */
export function readRequest(service: ServiceDescriptor): fc.Arbitrary<{ req: RawRequest; table: string }> {
  const readable = service.tables.filter((t) => t.resource?.ops.read);
  return fc.constantFrom(...readable).chain((table) =>
    fc
      .tuple(
        idText(table),
        fc.boolean(),
        fc.array(
          fc.oneof(
            fc.tuple(fc.constant("expand"), expandValue(table, service)),
            fc.tuple(fc.constantFrom("select", "sort", "page", "x"), anyText),
          ),
          { maxLength: 3 },
        ),
      )
      .map(([id, raw, params]) => {
        const qs = queryString(params, "encoded");
        return {
          req: { method: "GET", path: `${table.resource!.path}/${encodeId(id, raw)}${qs ? "?" + qs : ""}` },
          table: table.name,
        };
      }),
  );
}

/** Any method on any path: resource paths with junk appended, prefixes, case changes, unknown routes. */
export function strayRequest(service: ServiceDescriptor): fc.Arbitrary<RawRequest> {
  const paths = service.tables.flatMap((t) => (t.resource ? [t.resource.path] : []));
  const segment = fc.oneof(
    fc.constantFrom(
      ...paths.map((p) => p.slice(1)),
      "",
      ".",
      "..",
      "%2e%2e",
      "%2F",
      "%",
      "%00",
      "docs",
      "openapi.json",
    ),
    anyText.map(percentEncode),
    anyText,
  );
  const path = fc.oneof(
    fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => "/" + s.join("/")),
    fc
      .tuple(
        fc.constantFrom(...paths),
        fc.constantFrom("/", "//", "/1/", "/1/x", "/1/1", "?", "/?a=%", "/%", "/%zz", ";x", "/1;x"),
      )
      .map(([p, s]) => p + s),
    fc.constantFrom(...paths).map((p) => p.toUpperCase()),
    fc.constantFrom(...paths).map((p) => "/" + p),
  );
  return fc.record({
    method: fc.constantFrom("GET", "POST", "PATCH", "DELETE", "PUT", "OPTIONS", "HEAD", "PROPFIND", "get"),
    path,
    body: fc.option(fc.oneof(fc.constant("{}"), anyText), { nil: undefined }),
  });
}

/** The fields a body for `table` might carry: writable ones, read-only, hidden, key, unknown, prototype names. */
function bodyFieldName(table: TableDescriptor): fc.Arbitrary<string> {
  const v = vocabulary(table);
  const names = table.columns.map((c) => c.name);
  return fc.oneof(
    { arbitrary: fc.constantFrom(...(v.createWritable.length ? v.createWritable : names)), weight: 8 },
    { arbitrary: fc.constantFrom(...names), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        "__proto__",
        "constructor",
        "toString",
        "hasOwnProperty",
        "",
        " ",
        "password",
        "picture",
      ),
      weight: 1,
    },
    { arbitrary: anyText, weight: 1 },
  );
}

/** A JSON value for a body field of `col`: the right JSON type, the wrong one, huge numbers, nested junk. */
function jsonFor(col: ColumnDescriptor | undefined): fc.Arbitrary<unknown> {
  const text = valueFor(col);
  const plausible: fc.Arbitrary<unknown> = col?.array
    ? fc.array(text, { maxLength: 5 })
    : col && ["integer", "bigint"].includes(col.kind)
      ? fc.oneof(fc.integer({ min: -10, max: 40000 }), fc.integer(), fc.double())
      : col && ["numeric", "float"].includes(col.kind)
        ? fc.oneof(fc.double(), text)
        : col?.kind === "boolean"
          ? fc.boolean()
          : text;
  return fc.oneof(
    { arbitrary: plausible, weight: 6 },
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: text, weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
    {
      arbitrary: fc.constantFrom(1e308, -1e308, 2 ** 63, Number.MAX_SAFE_INTEGER + 2, 0.1 + 0.2, -0, 5e-324),
      weight: 1,
    },
  );
}

/** Literal JSON number spellings that `JSON.stringify` cannot produce. */
const RAW_NUMBERS = ["1e400", "-1e400", "123456789012345678901234567890", "0.0000000000000000000000001", "1E2", "-0.0"];

/**
 * A body text for a create or update of `table`: an object of generated
 * fields, sometimes with a raw huge number spliced in, a duplicated key,
 * deep nesting, or not an object or not JSON at all.
 */
export function bodyText(table: TableDescriptor): fc.Arbitrary<string> {
  const field = bodyFieldName(table).chain((name) =>
    jsonFor(table.columns.find((c) => c.name === name)).map((v): [string, unknown] => [name, v]),
  );
  const object = fc.array(field, { maxLength: 6 }).map((fs) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of fs)
      Object.defineProperty(o, k, { value: v, enumerable: true, configurable: true, writable: true });
    return JSON.stringify(o);
  });
  return fc.oneof(
    { arbitrary: object, weight: 10 },
    {
      arbitrary: fc
        .tuple(object, bodyFieldName(table), fc.constantFrom(...RAW_NUMBERS))
        .map(([o, k, n]) => o.replace(/^\{/, `{${JSON.stringify(k)}:${n}${o === "{}" ? "" : ","}`)),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(object, field)
        .map(([o, [k, v]]) =>
          o.replace(
            /^\{/,
            `{${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"},${JSON.stringify(k)}:1${o === "{}" ? "" : ","}`,
          ),
        ),
      weight: 1,
    },
    { arbitrary: deepJson, weight: 1 },
    {
      arbitrary: fc
        .tuple(object, bodyFieldName(table), deepJson)
        .map(([o, k, v]) => o.replace(/^\{/, `{${JSON.stringify(k)}:${v}${o === "{}" ? "" : ","}`)),
      weight: 2,
    },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null"), weight: 1 },
    { arbitrary: anyText, weight: 1 },
  );
}
