/**
 * The query parameters of the list and read operations (spec: Query
 * grammar and its subsections, Generated operations rule 4). A parameter is
 * described only where some value of it can succeed: `search` needs a
 * Searchable column, `expand` an expandable relation, `sort` a Sortable
 * column, and the filters (`or`, `and`, `not`, `filter`) a Filterable one;
 * elsewhere the service refuses every use of it
 * (docs/decisions/1000-openapi-description.md).
 */
import {
  MAX_GROUP_DEPTH,
  MAX_LIST_VALUES,
  MAX_VALUE_BYTES,
  type ColumnDescriptor,
  type TableDescriptor,
} from "../../../runtime/descriptor.js";
import { operatorValue } from "../../../runtime/operators.js";
import type { JsonValue } from "../../../runtime/predicate.js";
import { operatorsFor } from "../../../runtime/query/operators.js";
import { vocabulary, type TableVocabulary } from "../../../runtime/query/vocabulary.js";
import { pascalCase } from "../hono/names.js";
import { expandableRelations } from "./rows.js";
import { docText } from "./markdown.js";
import type { SharedComponents } from "./components.js";
import type { JsonSchema, Parameter, ParameterRef } from "./types.js";
import { exampleLeaf, leafText, type ExampleLeaf } from "./values.js";

const code = (s: string): string => `\`${s}\``;
const codes = (xs: readonly string[]): string => xs.map(code).join(", ");

/** What a column's values are, in words, for its filter description: the kind, or the SQL type of an enum or extension type. */
function typeWords(col: ColumnDescriptor): string {
  const sqlType = col.sqlType.replace(/(\[\])+$/, "");
  const base = col.kind === "other" ? sqlType : col.kind === "enum" ? `enum ${sqlType}` : col.kind;
  const t = col.array ? `array of ${base}` : base;
  return col.nullable ? `${t}, nullable` : t;
}

/** A repeatable string parameter: `?name=a&name=b` conjoins (style `form`, explode: OpenAPI's defaults for a query parameter, so left unsaid; decision 1320). */
function repeatable(name: string, description: string, example: string | undefined): Parameter {
  const p: Parameter = {
    name,
    in: "query",
    description,
    schema: { type: "array", items: { type: "string" } },
  };
  if (example !== undefined) p.example = [example];
  return p;
}

/** `(?:a|b)`: one of `names` (identifiers and relation names hold no pattern metacharacter). */
const oneOf = (names: readonly string[]): string => `(?:${names.join("|")})`;

/**
 * A list parameter as the service reads it: repeated (`?sort=a&sort=-b`,
 * what OpenAPI clients send for an array) or comma-separated within one
 * value (`?sort=a,-b`), or both. Each item's pattern admits a
 * comma-separated list of `term`s with optional spaces, so validating
 * proxies accept every form the service does; `examples` lists the
 * single terms (docs/decisions/1010-list-parameter-forms.md). The pattern
 * names each term once (a stray trailing comma passes it and is refused
 * by the service): the column list is a table's longest text, and writing
 * it once keeps the document a third of its first size (decision 1320).
 */
function termList(
  name: string,
  description: string,
  term: string,
  terms: readonly string[],
  extra: JsonSchema = {},
): Parameter {
  return {
    name,
    in: "query",
    description,
    schema: {
      type: "array",
      items: { type: "string", pattern: `^(?:\\s*${term}\\s*(?:,|$))+$`, examples: [...terms] },
      minItems: 1,
      uniqueItems: true,
      ...extra,
    },
    example: [terms[0]],
  };
}

/**
 * The schema the column filters of one operator set share: what a
 * condition looks like, its limits and the operators, said once in
 * `components.schemas` rather than in each parameter (decision 1320).
 * Named after the first column kind that uses it (`BigintConditions`);
 * a document column's conditions take no bare value and carry JSON.
 */
function conditionsSchema(col: ColumnDescriptor, shared: SharedComponents): JsonSchema {
  const document = col.kind === "jsonb" && !col.array;
  const kind = col.kind === "other" ? "Other" : col.kind.charAt(0).toUpperCase() + col.kind.slice(1);
  const name = `${col.nullable ? "Nullable" : ""}${kind}${col.array ? "Array" : ""}Conditions`;
  const operators = operatorsFor(col);
  return shared.memo(`conditions\u0000${name}\u0000${operators.join()}`, () => {
    const lines = [
      `Conditions \`operator.value\`${document ? "" : ", or a bare value for equality"}, each at most ${MAX_VALUE_BYTES} UTF-8 bytes; repeated, they combine with AND.`,
      `Operators: ${codes(operators)}.`,
      `The operands of list operators (\`in\`, \`nin\`, \`between\`, \`hasany\`, …) are comma-separated, at most ${MAX_LIST_VALUES}; double quotes protect commas: \`in."a,b",c\`.`,
    ];
    if (document) lines.push("The value of `hasdoc`/`nhasdoc` is a JSON document.");
    const schema: JsonSchema = { type: "array", items: { type: "string" }, description: lines.join("\n\n") };
    return shared.schema(name, schema);
  });
}

/**
 * `?<column>=`: one per Filterable column (spec: Column capabilities
 * "Filterable"); the operators of its type (in alphabetical order, the
 * order of the service's refusals) and the condition syntax are the shared
 * schema's, the values of an enum the parameter's own.
 */
function columnFilter(col: ColumnDescriptor, shared: SharedComponents): Parameter {
  const lines = [`Filter on ${code(col.name)} (${typeWords(col)}).`];
  if (col.enumValues) lines.push(`Values: ${codes(col.enumValues)}.`);
  if (col.doc !== undefined) lines.unshift(docText(col.doc));
  const leaf = exampleLeaf(col);
  const p: Parameter = {
    name: col.name,
    in: "query",
    description: lines.join("\n\n"),
    schema: conditionsSchema(col, shared),
  };
  if (leaf) p.example = [leafText(leaf)];
  return p;
}

/** The filterable columns that have an example filter, with it. */
function exampleLeaves(v: TableVocabulary): { column: string; leaf: ExampleLeaf }[] {
  const out: { column: string; leaf: ExampleLeaf }[] = [];
  for (const name of v.filterable) {
    const col = v.visible.get(name);
    const leaf = col && exampleLeaf(col);
    if (leaf) out.push({ column: name, leaf });
  }
  return out;
}

/**
 * `?or=`, `?and=`, `?not=`: nestable groups (docs/decisions/0300-filter-syntax.md
 * "Groups"), the same on every resource, so declared once (decision 1320).
 */
function groupParams(shared: SharedComponents): ParameterRef[] {
  return shared.memo("groups", () => groupParamRefs(shared));
}

function groupParamRefs(shared: SharedComponents): ParameterRef[] {
  const common = [
    "Children are `column.operator.value` (the operator is always written) or nested `and(…)`, `or(…)`, `not(…)` groups, comma-separated inside parentheses; the columns are those with a filter parameter on the operation.",
    `At most ${MAX_GROUP_DEPTH} levels of groups, counting this parameter as the first; repeated parameters combine with AND.`,
  ].join("\n\n");
  const group = (name: string, what: string): ParameterRef =>
    shared.parameter(pascal(name), repeatable(name, `${what}\n\n${common}`, undefined));
  return [
    group("or", "Matches rows that satisfy any child."),
    group("and", "Matches rows that satisfy every child."),
    group("not", "Matches rows that do not satisfy all children together: not=(a,b) is NOT (a AND b)."),
  ];
}

const pascal = (s: string): string => s.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());

/** The example leaf as a `?filter=` tree node: URL text stays text, a document is JSON. */
function treeLeaf(column: string, leaf: ExampleLeaf): JsonValue {
  const node: { [k: string]: JsonValue } = { field: column, op: leaf.op };
  if (leaf.value !== undefined)
    node.value = operatorValue(leaf.op, false) === "document" ? (JSON.parse(leaf.value) as JsonValue) : leaf.value;
  return node;
}

/** `?filter=`: the JSON tree form of the same filter (docs/decisions/0302-filter-tree.md). */
function filterTree(leaves: { column: string; leaf: ExampleLeaf }[], treeSchema: JsonSchema): Parameter {
  const example =
    leaves.length > 0
      ? JSON.stringify({ op: "and", children: [treeLeaf(leaves[0].column, leaves[0].leaf)] })
      : undefined;
  const p: Parameter = {
    name: "filter",
    in: "query",
    description:
      "The filter as a JSON tree (`FilterOperator` says how), ANDed with the URL filters. Its text is JSON of the tree schema (`contentSchema`).",
    // A string holding JSON of the tree schema. No `contentMediaType`: Swagger UI renders any string schema with one
    // as a file upload, so "Try it out" had no text box; generators read it as a string parameter either way
    // (docs/decisions/1255-filter-parameter-text.md).
    schema: { type: "string", contentSchema: treeSchema },
  };
  if (example !== undefined) p.example = example;
  return p;
}

/**
 * The JSON Schema of a `?filter=` tree on `table`: leaves name a filterable
 * column and an operator of the grammar; which operator fits which column is
 * the URL parameters' rule and is checked by the service.
 */
export function filterTreeSchema(table: TableDescriptor, selfRef: string, shared: SharedComponents): JsonSchema {
  const v = vocabulary(table);
  const ops = new Set<string>();
  for (const name of v.filterable) {
    const col = v.visible.get(name);
    if (col) operatorsFor(col).forEach((o) => ops.add(o));
  }
  return {
    description: `A filter tree over ${table.name}.`,
    oneOf: [
      {
        type: "object",
        properties: {
          field: { type: "string", enum: [...v.filterable] },
          op: shared.memo(`operators\u0000${[...ops].sort().join()}`, () =>
            shared.schema("FilterOperator", {
              type: "string",
              enum: [...ops].sort(),
              description:
                "The operator of a `?filter=` tree node. A tree is `{field, op, value}` leaves, with the operators of the field's URL parameter (list operands as an array), and `{op: and|or|not, children}` groups.",
            }),
          ),
          value: {},
        },
        required: ["field", "op"],
        additionalProperties: false,
      },
      {
        type: "object",
        properties: {
          op: { type: "string", enum: ["and", "or", "not"] },
          children: { type: "array", items: { $ref: selfRef }, minItems: 1 },
        },
        required: ["op", "children"],
        additionalProperties: false,
      },
    ],
  };
}

function sortDescription(table: TableDescriptor, v: TableVocabulary): string {
  const res = table.resource;
  const def =
    res && res.defaultSort.length > 0
      ? res.defaultSort.map((t) => (t.descending ? `-${t.column}` : t.column)).join(",")
      : undefined;
  const nulls = v.sortable
    .map((n) => v.visible.get(n))
    .filter((c): c is ColumnDescriptor => c?.nulls !== undefined)
    .map((c) => `${code(c.name)} sorts nulls ${c.nulls}`);
  const lines = [
    `Ordering by ${codes(v.sortable)}, most significant first, comma-separated or repeated; \`-col\` or \`col.desc\` descends.`,
    `${def === undefined ? "Default: primary-key order" : `Default: ${code(def)}`}; the primary key always breaks ties.`,
  ];
  if (nulls.length > 0) lines.push(`Null placement: ${nulls.join("; ")} in both directions.`);
  return lines.join("\n\n");
}

/** `?search=` of a table with searchable columns. */
function searchParameter(v: TableVocabulary): Parameter {
  return {
    name: "search",
    in: "query",
    description: `Case-insensitive substring of any of ${codes(v.searchable)} (not full-text search), at most ${MAX_VALUE_BYTES} UTF-8 bytes.`,
    schema: { type: "string" },
    example: "a",
  };
}

/**
 * The parameters of a filtered PATCH or DELETE on the collection
 * (docs/decisions/1333-filtered-writes.md): the list's filters, groups,
 * `?filter=` tree and search, nothing that selects, sorts or pages.
 */
export function filterParameters(
  table: TableDescriptor,
  treeSchema: JsonSchema,
  shared: SharedComponents,
): (Parameter | ParameterRef)[] {
  const v = vocabulary(table);
  const params = columnFilters(v, treeSchema, shared);
  if (v.searchable.length > 0) params.push(searchParameter(v));
  return params;
}

/** One filter parameter per filterable column, then the groups and the `?filter=` tree: what lists and filtered writes share. */
function columnFilters(
  v: TableVocabulary,
  treeSchema: JsonSchema,
  shared: SharedComponents,
): (Parameter | ParameterRef)[] {
  const params: (Parameter | ParameterRef)[] = [];
  for (const name of v.filterable) {
    const col = v.visible.get(name);
    if (col) params.push(columnFilter(col, shared));
  }
  if (v.filterable.length > 0) params.push(...groupParams(shared), filterTree(exampleLeaves(v), treeSchema));
  return params;
}

/** `select` of a list or a read of `table`: the same projection on both (docs/http.md, "Projection on a read"). */
export function selectParameter(table: TableDescriptor): Parameter {
  const v = vocabulary(table);
  return termList(
    "select",
    `Only these of ${codes(v.selectable)} (and the primary key); comma-separated or repeated.`,
    oneOf(v.selectable),
    v.selectable,
  );
}

/** Every query parameter of GET /<resource> on `table`, column filters first (in declaration order). */
export function listParameters(
  table: TableDescriptor,
  treeSchema: JsonSchema,
  shared: SharedComponents,
): (Parameter | ParameterRef)[] {
  const v = vocabulary(table);
  const limits = table.resource?.limits;
  const params = columnFilters(v, treeSchema, shared);

  if (v.sortable.length > 0) {
    // Every form on the first column, then each column once: the description says the rest.
    const terms = [v.sortable[0], `-${v.sortable[0]}`, `${v.sortable[0]}.desc`, ...v.sortable.slice(1)];
    const cols = oneOf(v.sortable);
    const extra: JsonSchema = limits ? { maxItems: limits.maxSortTerms } : {};
    params.push(termList("sort", sortDescription(table, v), `-?${cols}(?:\\.(?:asc|desc))?`, terms, extra));
  }
  params.push(selectParameter(table));
  if (v.searchable.length > 0) params.push(searchParameter(v));
  const expand = sharedExpand(table, shared);
  if (expand) params.push(expand);
  const pagingKey = limits ? `${limits.defaultPageSize},${limits.maxPageSize},${limits.maxOffset}` : "";
  params.push(
    ...shared.memo(`paging\u0000${pagingKey}`, () =>
      pagingParameters(table).map((p) => shared.parameter(pascal(p.name), p)),
    ),
  );
  return params;
}

/**
 * The parameters of a resource's change feed (docs/decisions/1337-change-feed.md): the list's column
 * filters and groups, `select` and `search`, and where to resume (`last_event_id`, or the
 * `Last-Event-ID` header an EventSource sends by itself).
 */
export function eventsParameters(
  table: TableDescriptor,
  treeSchema: JsonSchema,
  shared: SharedComponents,
): (Parameter | ParameterRef)[] {
  const v = vocabulary(table);
  const select = termList(
    "select",
    `Only these of ${codes(v.selectable)} (and the primary key) in each created or updated row; comma-separated or repeated.`,
    oneOf(v.selectable),
    v.selectable,
  );
  const resume =
    "Resume after this event: the `id` of the last event received. An id older than the changes kept gets one `reload` event first; one that does not exist yet is a 400.";
  return [
    ...filterParameters(table, treeSchema, shared),
    select,
    { name: "last_event_id", in: "query", description: resume, schema: { type: "string", pattern: "^\\d+\\.\\d+$" } },
    { name: "Last-Event-ID", in: "header", description: resume, schema: { type: "string" } },
  ];
}

/** `?expand=` of `table` under `components.parameters`, the one declaration its list and its read both point at. */
export function sharedExpand(table: TableDescriptor, shared: SharedComponents): ParameterRef | undefined {
  const expand = expandParameter(table);
  return expand && shared.parameter(`${pascalCase(table.name)}Expand`, expand);
}

/** `?expand=` on a table with expandable relations; absent otherwise (spec: Generated operations rule 4). */
export function expandParameter(table: TableDescriptor): Parameter | undefined {
  const relations = expandableRelations(table);
  if (relations.length === 0) return undefined;
  const names = relations.map((r) => r.name);
  const shapes = relations.map(
    (r) =>
      `${code(r.name)} (${r.kind === "forward" ? `the ${r.target} row` : `{items, has_more} of ${r.target} rows`})`,
  );
  return termList(
    "expand",
    `Relations to embed, one level deep: ${shapes.join(", ")}; comma-separated or repeated.`,
    oneOf(names),
    names,
  );
}

function pagingParameters(table: TableDescriptor): Parameter[] {
  const limits = table.resource?.limits;
  const pageSize = limits
    ? ` Default ${limits.defaultPageSize}; larger values are reduced to ${limits.maxPageSize}.`
    : "";
  const maxOffset = limits ? `, at most ${limits.maxOffset}` : "";
  const offsetSchema: JsonSchema = { type: "integer", minimum: 0 };
  if (limits) offsetSchema.maximum = limits.maxOffset;
  return [
    {
      name: "page",
      in: "query",
      description: `Page number of offset paging, from 1. The offset it implies counts toward the maximum offset${maxOffset}; page deeper with cursor. Not with offset or cursor.`,
      schema: { type: "integer", minimum: 1 },
      example: 2,
    },
    {
      name: "per_page",
      in: "query",
      description: `Rows per page.${pageSize}`,
      schema: { type: "integer", minimum: 1 },
      example: 10,
    },
    {
      name: "offset",
      in: "query",
      description: `Rows to skip${maxOffset}; page deeper with cursor. Not with page or cursor.`,
      schema: offsetSchema,
      example: 10,
    },
    {
      name: "cursor",
      in: "query",
      description: "Keyset pagination: next_cursor of the previous page, with the same sort. Not with page or offset.",
      schema: { type: "string", minLength: 1 },
    },
    {
      name: "count",
      in: "query",
      description: "`exact` adds total, the size of the whole filtered result, to the response.",
      schema: { type: "string", enum: ["exact"] },
      example: "exact",
    },
  ];
}

/**
 * The item path of `table`'s resource under `path`: `/{id}` for a
 * single-column key, one template per key column in key order for a
 * composite key, named by the column (`/{film_id}/{actor_id}`;
 * docs/decisions/1376-composite-key-address.md).
 */
export function itemPathTemplate(table: TableDescriptor, path: string): string {
  if (table.primaryKey.length <= 1) return `${path}/{id}`;
  return path + table.primaryKey.map((k) => `/{${k}}`).join("");
}

/**
 * The path parameters of a composite key, one per key column in key order,
 * each named by its column and typed by `keySchemaOf` (decision 1376).
 */
export function compositeKeyParameters(
  table: TableDescriptor,
  keySchemaOf: (column: string) => JsonSchema,
): Parameter[] {
  return table.primaryKey.map((k, i) => ({
    name: k,
    in: "path" as const,
    required: true,
    description: `Column ${i + 1} of ${table.primaryKey.length} of the row's primary key, ${code(k)}.`,
    schema: keySchemaOf(k),
  }));
}

/** The `{id}` path parameter: the single-column primary key, named only when the key is visible. */
export function idParameter(table: TableDescriptor, keySchema: JsonSchema): Parameter {
  const key = table.primaryKey[0];
  const visible = vocabulary(table).visible.has(key);
  return {
    name: "id",
    in: "path",
    required: true,
    description: visible ? `The row's primary key, ${code(key)}.` : "The row's primary key.",
    schema: keySchema,
  };
}
