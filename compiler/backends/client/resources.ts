/**
 * The `index.ts` file of the typed client: one class per served resource
 * with one method per exposed operation and nothing for the others (spec:
 * guarantee 4), and the `Client` holding one member per resource. Methods
 * only pass typed arguments to the fixed core (`http.ts`), so no logic is
 * copied per resource.
 */
import type { ServiceDescriptor, TableDescriptor } from "../../../runtime/descriptor.js";
import { group, indent, indentIfBreak, line, printDoc, type Doc } from "../doc-printer.js";
import type { ModulePiece } from "../final-form.js";
import { call } from "../ts-docs.js";
import { camelCase, docComment, resourceName } from "./names.js";
import { hasFilteredWrites, resourcePieces, upsertKeys } from "./resource-class.js";
import { clientTypeNames, hasItemRoutes } from "./types.js";
import { actionTypeNames } from "../../actions.js";

/** Members of `Client` (and its `HttpClient`) a resource member may not take (`credential`: docs/decisions/1367-access-rules.md). */
const RESERVED_MEMBERS = new Set([
  "baseURL",
  "token",
  "transport",
  "do",
  "send",
  "prepare",
  "credential",
  "with",
  "constructor",
]);

/** The member name of a served table on `Client`: the camelCase path (`/task_watchers` → `taskWatchers`). */
export function clientMember(table: TableDescriptor): string {
  const name = camelCase(resourceName(table.resource?.path ?? table.name));
  return RESERVED_MEMBERS.has(name) ? `${name}Resource` : name;
}

/**
 * The types of `types.ts` a table's part of `index.ts` names, in the order
 * they are imported: what its item alias and its methods spell, known from
 * its operations rather than searched for in a text of megabytes.
 */
function namedTypes(table: TableDescriptor): string[] {
  const ops = table.resource?.ops;
  if (!ops) return [];
  const n = clientTypeNames(table);
  // Read, update and delete take every key column (docs/decisions/1376-composite-key-address.md).
  const key = table.primaryKey.length > 0;
  const expandable = table.relations.some((r) => r.expandable);
  const read = ops.read && key;
  // updateWhere/deleteWhere (decision 1333) take a list's where; upsert (decision 1332) names key columns.
  const filtered = hasFilteredWrites(table);
  const uses: [string, boolean][] = [
    [n.row, true],
    [n.create, ops.create],
    [n.update, ops.update && (key || filtered)],
    [n.where, filtered],
    [n.column, ops.list || upsertKeys(table).length > 0],
    [n.key, true],
    [n.id, key && hasItemRoutes(table)],
    [n.relation, expandable && (ops.list || read)],
    [n.expansions, expandable],
    [n.listQuery, ops.list],
    [n.eventsQuery, ops.list && table.resource?.events === true],
    [n.readQuery, read && expandable],
  ];
  const actions = (table.resource?.actions ?? []).flatMap((a): [string, boolean][] => {
    const names = actionTypeNames(table.name, a.name);
    return [
      [names.input, a.input.length > 0],
      [names.output, a.output !== undefined],
    ];
  });
  return [...uses, ...actions].filter(([, used]) => used).map(([name]) => name);
}

/**
 * The pieces of `index.ts` after the header: imports, then per served
 * table its constants, item type and class ({@link resourcePieces}), then
 * `Client`; pieces not marked final are settled by the caller.
 */
export function resourcesModule(service: ServiceDescriptor): ModulePiece[] {
  const served = service.tables.filter((t) => t.resource);
  const perTable = served.map((t) => {
    const pieces = resourcePieces(t);
    return { table: t, pieces, text: pieces.map((p) => p.text).join("\n\n") };
  });
  // Looked for table by table: joining every class into one text to search would copy megabytes (bench/COMPILER.md).
  const used = (name: string): boolean => {
    const pattern = new RegExp(`\\b${name}\\b`);
    return perTable.some((t) => pattern.test(t.text));
  };
  const coreValues = [
    "HttpClient",
    "fetchPage",
    "itemPath",
    "requestJson",
    "upsertRequest",
    "filteredRequest",
    "writeBody",
    "walkPages",
    "followEvents",
  ].filter((v) => v === "HttpClient" || used(v));
  const coreTypes = [
    "CallOptions",
    "ClientOptions",
    "ColumnCodecs",
    "Expanded",
    "ListPage",
    "Selected",
    "Upsert",
    "FilteredWriteOptions",
    "ChangeEvent",
    "EventsOptions",
  ].filter((t) => t === "ClientOptions" || used(t));
  const usedTypes = served.flatMap(namedTypes);
  const head = [
    `import { ${coreValues.join(", ")}, type ${coreTypes.join(", type ")} } from "./http.js";`,
    usedTypes.length > 0 ? `import type { ${usedTypes.join(", ")} } from "./types.js";` : "",
    `export * from "./http.js";`,
    `export type * from "./types.js";`,
  ]
    .filter((s) => s !== "")
    .join("\n\n");
  return [{ text: head, form: "settle" }, ...perTable.flatMap((t) => t.pieces), clientClass(service, served)];
}

/**
 * `this.<member> = new <T>Resource(this);`, laid out "fluid" as prettier lays out an assignment: the `new` moves to
 * the next line when its opening parenthesis would not fit, then its argument to its own line.
 */
function memberInit(member: string, resource: string): Doc {
  const id = Symbol("assignment");
  return [
    group([`this.${member}`, " =", group(indent(line), id), indentIfBreak(["new ", call(resource, [], ["this"])], id)]),
    ";",
  ];
}

/**
 * `index.ts`'s `Client` (spec: Typed client), in final form: a member
 * declaration cannot break (prettier leaves a long one long), its
 * initialization is laid out by {@link memberInit}.
 */
function clientClass(service: ServiceDescriptor, served: readonly TableDescriptor[]): ModulePiece {
  const members = served.map(
    (t) =>
      `${docComment(`\`${t.resource?.path}\``, "  ")}  readonly ${clientMember(t)}: ${clientTypeNames(t).resource};`,
  );
  const inits = served.map((t) => `    ${printDoc(memberInit(clientMember(t), clientTypeNames(t).resource), 4)}`);
  const text =
    `${docComment(`The typed client of ${service.title} ${service.version}: one member per resource.\n\n\`new Client({ baseURL, token, transport })\`; every option may be left out (default base address: DEFAULT_BASE_URL).`)}` +
    `export class Client extends HttpClient {\n${members.join("\n")}\n\n` +
    `  constructor(options: ClientOptions = {}) {\n    super(options);\n${inits.join("\n")}\n  }\n\n` +
    "  /** A client with some options changed; the others are kept. */\n" +
    "  with(changes: ClientOptions): Client {\n" +
    "    return new Client({\n      baseURL: this.baseURL,\n      token: this.token,\n      transport: this.transport,\n      ...changes,\n    });\n  }\n}";
  return { text, form: "final" };
}
