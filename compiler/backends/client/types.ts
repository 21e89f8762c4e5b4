/**
 * The `types.ts` file of the typed client: per served table, the row and
 * body types and the vocabulary types that make wrong requests fail to
 * compile (spec: Typed client; Column capabilities). Hidden columns are
 * spelled nowhere: every list below comes from the runtime's vocabulary,
 * which never holds one (spec: guarantee 2).
 */
import type {
  ActionDescriptor,
  ColumnDescriptor,
  ServiceDescriptor,
  TableDescriptor,
} from "../../../runtime/descriptor.js";
import { actionRoute, actionTypeNames } from "../../actions.js";
import { vocabulary } from "../../../runtime/query/vocabulary.js";
import { rolesHiding, stampedColumns } from "../../../runtime/access/rules.js";
import { docComment, pascalCase, propertyKey } from "./names.js";
import { filterType, valueType } from "./value-types.js";

/** Type names of one table in the client. */
export interface ClientTypeNames {
  row: string;
  create: string;
  update: string;
  column: string;
  key: string;
  id: string;
  sort: string;
  relation: string;
  expansions: string;
  where: string;
  listQuery: string;
  eventsQuery: string;
  readQuery: string;
  item: string;
  resource: string;
}

/** `<Pascal>Row`, `<Pascal>Create`, … for a table (the row and body names match the Hono module's). */
export function clientTypeNames(table: TableDescriptor): ClientTypeNames {
  const s = pascalCase(table.name);
  return {
    row: `${s}Row`,
    create: `${s}Create`,
    update: `${s}Update`,
    column: `${s}Column`,
    key: `${s}Key`,
    id: `${s}Id`,
    sort: `${s}Sort`,
    relation: `${s}Relation`,
    expansions: `${s}Expansions`,
    where: `${s}Where`,
    listQuery: `${s}ListQuery`,
    eventsQuery: `${s}EventsQuery`,
    readQuery: `${s}ReadQuery`,
    item: `${s}Item`,
    resource: `${s}Resource`,
  };
}

function findTable(service: ServiceDescriptor, name: string): TableDescriptor {
  const t = service.tables.find((x) => x.name === name);
  if (!t) throw new Error(`unknown table ${name}; validate the schema first`);
  return t;
}

/** The column of a single-column primary key, which item actions take; undefined for composite keys. */
export function singleKey(table: TableDescriptor): ColumnDescriptor | undefined {
  if (table.primaryKey.length !== 1) return undefined;
  return table.columns.find((c) => c.name === table.primaryKey[0]);
}

/**
 * The primary-key columns of `table` in key order, which read, update and
 * delete take (one path segment each; docs/decisions/1376-composite-key-address.md);
 * empty when the table has none.
 */
export function keyColumnsOf(table: TableDescriptor): ColumnDescriptor[] {
  return table.primaryKey.flatMap((k) => table.columns.filter((c) => c.name === k));
}

/** The TypeScript type a key column takes in an item path (URL text, so a bigint may also be a string). */
function keyValueType(key: ColumnDescriptor): string {
  return key.kind === "bigint" ? "number | bigint | string" : key.kind === "integer" ? "number" : "string";
}

function union(names: readonly string[]): string {
  return names.length === 0 ? "never" : names.map((n) => JSON.stringify(n)).join(" | ");
}

function fields(columns: readonly ColumnDescriptor[], line: (c: ColumnDescriptor) => string): string {
  return columns.map((c) => `${docComment(c.doc)}${line(c)}`).join("\n");
}

function declare(name: string, doc: string, body: string): string {
  if (body === "") return `${docComment(doc)}export type ${name} = Record<string, never>;`;
  return `${docComment(doc)}export interface ${name} {\n${body}\n}`;
}

/**
 * The row type of a table as a direct read returns it: visible columns, computed ones only when its resource
 * computes them. A column the access rules hide from some roles is optional, its TSDoc naming those roles:
 * their callers never receive it (docs/decisions/1367-access-rules.md).
 */
function rowDeclaration(table: TableDescriptor): string {
  const names = clientTypeNames(table);
  const visible = [...vocabulary(table).visible.values()];
  const what = table.resource ? `\`${table.resource.path}\` (table \`${table.name}\`)` : `table \`${table.name}\``;
  const doc = table.doc ? `${table.doc}\n\nA row of ${what}.` : `A row of ${what}.`;
  const blocks = table.access ?? [];
  const lines = visible.map((c) => {
    const from = rolesHiding(blocks, c.name);
    const type = `${valueType(c, "read")}${c.nullable ? " | null" : ""};`;
    if (from.length === 0) return `${docComment(c.doc)}${propertyKey(c.name)}: ${type}`;
    const roles = from.map((r) => `\`${r}\``).join(", ");
    const note = `Not received by the role${from.length > 1 ? "s" : ""} ${roles}: ${from.length > 1 ? "their" : "its"} access rules hide this column.`;
    return `${docComment(c.doc ? `${c.doc}\n\n${note}` : note)}${propertyKey(c.name)}?: ${type}`;
  });
  return declare(names.row, doc, lines.join("\n"));
}

function byName(table: TableDescriptor, names: readonly string[]): ColumnDescriptor[] {
  return names
    .map((n) => table.columns.find((c) => c.name === n))
    .filter((c): c is ColumnDescriptor => c !== undefined);
}

/** The declarations of one served table. */
function resourceDeclarations(service: ServiceDescriptor, table: TableDescriptor): string[] {
  const resource = table.resource;
  if (!resource) return [];
  const names = clientTypeNames(table);
  const vocab = vocabulary(table);
  const what = `\`${resource.path}\``;
  const out = [rowDeclaration(table)];
  const writes = resource.ops.create || resource.ops.update;
  // A column the access rules stamp for some roles is theirs to leave out (docs/decisions/1367-access-rules.md).
  const stamped = stampedColumns(table);
  out.push(
    declare(
      names.create,
      `The create body of ${what}: read-only and computed columns are absent; defaulted and nullable ones optional` +
        (stamped.size > 0 ? ", and those the access rules stamp for some roles (which leave them out)." : "."),
      writes
        ? fields(
            byName(table, vocab.createWritable),
            (c) =>
              `${propertyKey(c.name)}${c.nullable || c.hasDefault || stamped.has(c.name) ? "?" : ""}: ${valueType(c, "body")}${c.nullable ? " | null" : ""};`,
          )
        : "",
    ),
    declare(
      names.update,
      `The update body of ${what}: every field optional; only the fields given are changed.`,
      writes
        ? fields(
            byName(table, vocab.updateWritable),
            (c) => `${propertyKey(c.name)}?: ${valueType(c, "body")}${c.nullable ? " | null" : ""};`,
          )
        : "",
    ),
  );
  out.push(
    `${docComment(`The columns of ${names.row}: what \`select\` accepts.`)}export type ${names.column} = ${union(vocab.selectable)};`,
  );
  out.push(
    `${docComment(`The primary-key columns of ${what}, returned whatever \`select\` says.`)}export type ${names.key} = ${union(table.primaryKey)};`,
  );
  const key = singleKey(table);
  const keyColumns = keyColumnsOf(table);
  if (key && hasItemRoutes(table)) {
    out.push(
      `${docComment(`The \`{id}\` of an item of ${what}: its \`${key.name}\`.`)}export type ${names.id} = ${keyValueType(key)};`,
    );
  } else if (keyColumns.length > 1 && hasItemRoutes(table)) {
    // docs/decisions/1376-composite-key-address.md: every key column by name, sent as path segments in key order.
    const path = keyColumns.map((c) => `/{${c.name}}`).join("");
    out.push(
      `${docComment(`The key of an item of ${what}: its ${keyColumns.map((c) => `\`${c.name}\``).join(", ")}, sent as \`${path}\`.`)}export type ${names.id} = {\n${keyColumns.map((c) => `  ${propertyKey(c.name)}: ${keyValueType(c)};\n`).join("")}};`,
    );
  }
  if (resource.ops.list) {
    const terms = vocab.sortable.flatMap((c) => [c, `-${c}`]);
    out.push(
      `${docComment(`A sort term of ${what}: a sortable column, \`-\` for descending.`)}export type ${names.sort} = ${union(terms)};`,
    );
  }
  const expandable = table.relations.filter((r) => r.expandable);
  if (expandable.length > 0) {
    out.push(
      `${docComment(`The expandable relations of ${what}.`)}export type ${names.relation} = ${union(expandable.map((r) => r.name))};`,
    );
    const members = expandable.map((r) => {
      const target = clientTypeNames(findTable(service, r.target)).row;
      if (r.kind === "inverse") return `${propertyKey(r.name)}: Children<${target}>;`;
      const local = table.columns.find((c) => c.name === r.column);
      return `${propertyKey(r.name)}: ${target}${local?.nullable ? " | null" : ""};`;
    });
    out.push(
      declare(
        names.expansions,
        `What \`expand\` adds to a row of ${what}, by relation name: a forward relation's target row, an inverse relation's first children.`,
        members.join("\n"),
      ),
    );
  }
  if (resource.ops.list && vocab.filterable.length > 0) {
    const filters = fields(byName(table, vocab.filterable), (c) => `${propertyKey(c.name)}?: ${filterType(c)};`);
    const groups = [
      `/** Any member matches (\`or=(…)\`); each member is a conjunction. */\nor?: readonly ${names.where}[];`,
      `/** Every member matches; the same as writing them side by side. */\nand?: readonly ${names.where}[];`,
      `/** NOT of the conjunction of its members (\`not=(…)\`). */\nnot?: ${names.where};`,
    ];
    out.push(
      declare(
        names.where,
        `A filter of ${what}: per filterable column a value (equality) or operators; several conjoin.`,
        `${filters}\n${groups.join("\n")}`,
      ),
    );
  }
  for (const action of resource.actions ?? []) out.push(...actionDeclarations(table, action));
  if (resource.ops.list) out.push(listQueryDeclaration(table));
  if (resource.events && resource.ops.list) out.push(eventsQueryDeclaration(table));
  if (resource.ops.read && keyColumns.length > 0 && expandable.length > 0) {
    out.push(
      `${docComment(`The query of a read of ${what}: \`expand\` is its only parameter.`)}export interface ${names.readQuery}<E extends readonly ${names.relation}[] | undefined = undefined> {\nexpand?: E;\n}`,
    );
  }
  return out;
}

/** The input type of a declared action and, when declared, its output type (docs/decisions/1334-declared-actions.md). */
function actionDeclarations(table: TableDescriptor, action: ActionDescriptor): string[] {
  const names = actionTypeNames(table.name, action.name);
  const route = `POST ${actionRoute(table.resource?.path ?? "", action)}`;
  const out = [
    declare(
      names.input,
      `The input of ${route}: a nullable field may be left out.`,
      fields(
        action.input,
        (c) =>
          `${propertyKey(c.name)}${c.nullable ? "?" : ""}: ${valueType(c, "write")}${c.nullable ? " | null" : ""};`,
      ),
    ),
  ];
  if (action.output)
    out.push(
      declare(
        names.output,
        `What ${route} answers.`,
        fields(action.output, (c) => `${propertyKey(c.name)}: ${valueType(c, "read")}${c.nullable ? " | null" : ""};`),
      ),
    );
  return out;
}

/** Whether the client addresses single rows of `table` by `{id}`: a read, update, delete or item action is served. */
export function hasItemRoutes(table: TableDescriptor): boolean {
  const r = table.resource;
  if (!r) return false;
  return r.ops.read || r.ops.update || r.ops.delete || (r.actions ?? []).some((a) => a.target === "item");
}

function listQueryDeclaration(table: TableDescriptor): string {
  const names = clientTypeNames(table);
  const vocab = vocabulary(table);
  const expandable = table.relations.some((r) => r.expandable);
  const params = [`S extends readonly ${names.column}[] | undefined = undefined`];
  if (expandable) params.push(`E extends readonly ${names.relation}[] | undefined = undefined`);
  const members: string[] = [];
  if (vocab.filterable.length > 0) members.push(`where?: ${names.where};`);
  if (vocab.sortable.length > 0)
    members.push(
      `/** Replaces the default ordering; the key is appended as a tiebreaker. */\nsort?: readonly ${names.sort}[];`,
    );
  members.push(`/** The columns to return (the key always comes back); all when absent. */\nselect?: S;`);
  if (expandable) members.push(`/** Relations to add to each row. */\nexpand?: E;`);
  if (vocab.searchable.length > 0) {
    members.push(`/** Case-insensitive substring match over ${vocab.searchable.join(", ")}. */\nsearch?: string;`);
  }
  return `${docComment(`A list query of \`${table.resource?.path}\`.`)}export interface ${names.listQuery}<${params.join(", ")}> extends PageParams {\n${members.join("\n")}\n}`;
}

/** What `events` takes (docs/decisions/1337-change-feed.md): a list query's filters, projection and search, no paging. */
function eventsQueryDeclaration(table: TableDescriptor): string {
  const names = clientTypeNames(table);
  const vocab = vocabulary(table);
  const members: string[] = [];
  if (vocab.filterable.length > 0) members.push(`where?: ${names.where};`);
  members.push(
    `/** The columns of each created or updated row (the key always comes back); all when absent. */\nselect?: S;`,
  );
  if (vocab.searchable.length > 0)
    members.push(`/** Case-insensitive substring match over ${vocab.searchable.join(", ")}. */\nsearch?: string;`);
  return `${docComment(`What the change feed of \`${table.resource?.path}\` selects.`)}export interface ${names.eventsQuery}<S extends readonly ${names.column}[] | undefined = undefined> {\n${members.join("\n")}\n}`;
}

/** Tables whose rows appear in the client: served ones, and targets of their expandable relations. */
export function clientTables(service: ServiceDescriptor): { served: TableDescriptor[]; rowOnly: TableDescriptor[] } {
  const served = service.tables.filter((t) => t.resource);
  const targets = new Set(served.flatMap((t) => t.relations.filter((r) => r.expandable).map((r) => r.target)));
  const rowOnly = service.tables.filter((t) => !t.resource && targets.has(t.name));
  return { served, rowOnly };
}

/** The text of `types.ts` (unformatted), after the header. */
export function typesModule(service: ServiceDescriptor): string {
  const { rowOnly } = clientTables(service);
  const declarations = service.tables.flatMap((t) => {
    if (t.resource) return resourceDeclarations(service, t);
    return rowOnly.includes(t) ? [rowDeclaration(t)] : [];
  });
  const body = declarations.join("\n\n");
  const used = [
    "ArrayFilter",
    "Children",
    "DocumentFilter",
    "EqualityFilter",
    "JsonValue",
    "Nullable",
    "OrderFilter",
    "PageParams",
    "TextFilter",
  ].filter((name) => new RegExp(`\\b${name}\\b`).test(body));
  const imports = used.length > 0 ? `import type { ${used.join(", ")} } from "./http.js";\n\n` : "";
  return imports + body + "\n";
}
