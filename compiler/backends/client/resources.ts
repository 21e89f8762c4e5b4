/**
 * The `index.ts` file of the typed client: one class per served resource
 * with one method per exposed operation and nothing for the others (spec:
 * guarantee 4), and the `Client` holding one member per resource. Methods
 * only pass typed arguments to the fixed core (`http.ts`), so no logic is
 * copied per resource.
 */
import type { ServiceDescriptor, TableDescriptor } from "../../../runtime/descriptor.js";
import { vocabulary } from "../../../runtime/query/vocabulary.js";
import { camelCase, constantCase, docComment, propertyKey, resourceName } from "./names.js";
import { clientTypeNames, singleKey } from "./types.js";
import { filterCodec } from "./value-types.js";

/** Members of `Client` a resource member may not take. */
const RESERVED_MEMBERS = new Set(["baseURL", "token", "transport", "do", "prepare", "with", "constructor"]);

/** The member name of a served table on `Client`: the camelCase path (`/task_watchers` → `taskWatchers`). */
export function clientMember(table: TableDescriptor): string {
  const name = camelCase(resourceName(table.resource?.path ?? table.name));
  return RESERVED_MEMBERS.has(name) ? `${name}Resource` : name;
}

function codecsLiteral(table: TableDescriptor): string {
  const vocab = vocabulary(table);
  const entries = vocab.filterable
    .map((n) => table.columns.find((c) => c.name === n))
    .flatMap((c) => {
      const codec = c ? filterCodec(c) : undefined;
      return c && codec ? [`${propertyKey(c.name)}: ${JSON.stringify(codec)}`] : [];
    });
  return `{ ${entries.join(", ")} }`;
}

function resourceClass(table: TableDescriptor): string {
  const resource = table.resource;
  if (!resource) return "";
  const n = clientTypeNames(table);
  const stem = constantCase(table.name);
  const path = JSON.stringify(resource.path);
  const expandable = table.relations.some((r) => r.expandable);
  const key = singleKey(table);
  const ops = resource.ops;
  const methods: string[] = [];

  const typeParams = `<const S extends readonly ${n.column}[] | undefined = undefined${expandable ? `, const E extends readonly ${n.relation}[] | undefined = undefined` : ""}>`;
  const itemArgs = expandable ? "S, E" : "S";
  const queryArgs = expandable ? "S, E" : "S";
  if (ops.list) {
    methods.push(
      `${docComment(`GET ${resource.path}: one page. \`select\` narrows the rows, \`expand\` adds relations.\n@throws ProblemError when the service refuses the query (400 lists what is allowed)`)}` +
        `list${typeParams}(query: ${n.listQuery}<${queryArgs}> = {}, options?: CallOptions): Promise<ListPage<${n.item}<${itemArgs}>>> {\n` +
        `return fetchPage<${n.item}<${itemArgs}>>(this.client, ${stem}_PATH, ${stem}_CODECS, query, options);\n}`,
      `${docComment(`GET ${resource.path}, page after page: follows \`next_cursor\` until the last page.`)}` +
        `pages${typeParams}(query: ${n.listQuery}<${queryArgs}> = {}, options?: CallOptions): AsyncGenerator<ListPage<${n.item}<${itemArgs}>>, void, undefined> {\n` +
        `return walkPages<${n.item}<${itemArgs}>>(this.client, ${stem}_PATH, ${stem}_CODECS, query, options);\n}`,
    );
  }
  if (ops.read && key) {
    if (expandable) {
      methods.push(
        `${docComment(`GET ${resource.path}/{id}: one row.\n@throws ProblemError 404 when there is no such row`)}` +
          `get<const E extends readonly ${n.relation}[] | undefined = undefined>(id: ${n.id}, query: ${n.readQuery}<E> = {}, options?: CallOptions): Promise<${n.item}<undefined, E>> {\n` +
          `const expand: [string, string][] = query.expand && query.expand.length > 0 ? [["expand", query.expand.join(",")]] : [];\n` +
          `return requestJson<${n.item}<undefined, E>>(this.client, { method: "GET", path: itemPath(${stem}_PATH, id), query: expand }, options);\n}`,
      );
    } else {
      methods.push(
        `${docComment(`GET ${resource.path}/{id}: one row.\n@throws ProblemError 404 when there is no such row`)}` +
          `get(id: ${n.id}, options?: CallOptions): Promise<${n.row}> {\n` +
          `return requestJson<${n.row}>(this.client, { method: "GET", path: itemPath(${stem}_PATH, id) }, options);\n}`,
      );
    }
  }
  if (ops.create) {
    methods.push(
      `${docComment(`POST ${resource.path}: creates a row and returns it as stored.\n@throws ProblemError 400 (body refused), 409 (duplicate), 422 (constraint)`)}` +
        `create(body: ${n.create}, options?: CallOptions): Promise<${n.row}> {\n` +
        `return requestJson<${n.row}>(this.client, { method: "POST", path: ${stem}_PATH, body }, options);\n}`,
    );
  }
  if (ops.update && key) {
    methods.push(
      `${docComment(`PATCH ${resource.path}/{id}: changes the fields given and returns the written row.\n@throws ProblemError 400 (empty or refused change), 404, 409, 422`)}` +
        `update(id: ${n.id}, body: ${n.update}, options?: CallOptions): Promise<${n.row}> {\n` +
        `return requestJson<${n.row}>(this.client, { method: "PATCH", path: itemPath(${stem}_PATH, id), body }, options);\n}`,
    );
  }
  if (ops.delete && key) {
    methods.push(
      `${docComment(`DELETE ${resource.path}/{id}: deletes the row.\n@throws ProblemError 404 when there is no such row`)}` +
        `async delete(id: ${n.id}, options?: CallOptions): Promise<void> {\n` +
        `await this.client.do({ method: "DELETE", path: itemPath(${stem}_PATH, id) }, options);\n}`,
    );
  }

  const itemType = expandable
    ? `Selected<${n.row}, S, ${n.key}> & Expanded<${n.expansions}, E>`
    : `Selected<${n.row}, S, ${n.key}>`;
  const doc = resource.doc ?? table.doc;
  return [
    `const ${stem}_PATH = ${path};`,
    `const ${stem}_CODECS: ColumnCodecs = ${codecsLiteral(table)};`,
    `${docComment(`A row of \`${resource.path}\` as returned for a given \`select\`${expandable ? " and `expand`" : ""}.`)}export type ${n.item}<S = undefined${expandable ? ", E = undefined" : ""}> = ${itemType};`,
    `${docComment(`${doc ? `${doc}\n\n` : ""}The operations of \`${resource.path}\`.`)}export class ${n.resource} {\nprivate readonly client: HttpClient;\n\nconstructor(client: HttpClient) {\nthis.client = client;\n}\n\n${methods.join("\n\n")}\n}`,
  ].join("\n\n");
}

/** The text of `index.ts` (unformatted), after the header. */
export function resourcesModule(service: ServiceDescriptor): string {
  const served = service.tables.filter((t) => t.resource);
  const classes = served.map(resourceClass).join("\n\n");
  const coreValues = ["HttpClient", "fetchPage", "itemPath", "requestJson", "walkPages"].filter((v) =>
    new RegExp(`\\b${v}\\b`).test(classes + " HttpClient"),
  );
  const coreTypes = ["CallOptions", "ClientOptions", "ColumnCodecs", "Expanded", "ListPage", "Selected"].filter((t) =>
    new RegExp(`\\b${t}\\b`).test(classes + " ClientOptions"),
  );
  const typeNames = served.flatMap((t) => {
    const n = clientTypeNames(t);
    return [n.row, n.create, n.update, n.column, n.key, n.id, n.relation, n.expansions, n.listQuery, n.readQuery];
  });
  const usedTypes = typeNames.filter((name) => new RegExp(`\\b${name}\\b`).test(classes));
  const members = served.map((t) => `${docComment(`\`${t.resource?.path}\``)}readonly ${clientMember(t)}: ${clientTypeNames(t).resource};`);
  const inits = served.map((t) => `this.${clientMember(t)} = new ${clientTypeNames(t).resource}(this);`);
  const client =
    `${docComment(`The typed client of ${service.title} ${service.version}: one member per resource.\n\n\`new Client({ baseURL, token, transport })\`; every option may be left out (default base address: DEFAULT_BASE_URL).`)}` +
    `export class Client extends HttpClient {\n${members.join("\n")}\n\nconstructor(options: ClientOptions = {}) {\nsuper(options);\n${inits.join("\n")}\n}\n\n` +
    `/** A client with some options changed; the others are kept. */\nwith(changes: ClientOptions): Client {\nreturn new Client({ baseURL: this.baseURL, token: this.token, transport: this.transport, ...changes });\n}\n}`;
  return [
    `import { ${coreValues.join(", ")}, type ${coreTypes.join(", type ")} } from "./http.js";`,
    usedTypes.length > 0 ? `import type { ${usedTypes.join(", ")} } from "./types.js";` : "",
    `export * from "./http.js";`,
    `export type * from "./types.js";`,
    classes,
    client,
  ]
    .filter((s) => s !== "")
    .join("\n\n");
}
