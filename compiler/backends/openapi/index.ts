/**
 * The OpenAPI backend: an OpenAPI 3.1 description of the service (spec:
 * "What the service does", Authentication rule 3, Versioning), built from
 * the runtime descriptor so it says exactly what the handlers accept.
 *
 * `resc openapi FILE` prints it; the generated module carries it as data
 * (`<package>/openapi.ts`) and `resc dev` computes it in memory; the
 * runtime's `mountDocs` serves it with the documentation page. Choices the
 * spec leaves open: docs/decisions/1000-openapi-description.md.
 */
import { buildDescriptor } from "../../descriptor.js";
import type { Schema } from "../../../language/ir.js";
import type { ServiceDescriptor } from "../../../runtime/descriptor.js";
import { vocabulary } from "../../../runtime/query/vocabulary.js";
import { SharedComponents } from "./components.js";
import { actionInputSchema, actionOutputSchema, resourcePaths } from "./operations.js";
import { actionTypeNames } from "../../actions.js";
import { filterTreeSchema, itemPathTemplate } from "./parameters.js";
import { problemResponses, problemSchemas } from "./problems.js";
import {
  createSchema,
  expandableRelations,
  expansionsSchema,
  listItemSchema,
  listSchema,
  ref,
  rowSchema,
  schemaNames,
  updateSchema,
} from "./rows.js";
import { docText } from "./markdown.js";
import { accessResponses, bearerScheme, governance } from "./access.js";
import type { JsonSchema, OpenApiDocument, PathItem, SecurityScheme, Tag } from "./types.js";

export type * from "./types.js";

/** Options of {@link openApiDocument}. */
export interface OpenApiOptions {
  /** `info.description`: the `api` block's `///` comment. */
  description?: string;
  /** `info.license`: the `api` block's `license` setting, an SPDX identifier such as `MIT`. */
  license?: string;
}

/** Tables whose row schema is needed: served tables with a read or write, and every target of an expansion, in schema order. */
function rowTables(service: ServiceDescriptor): Set<string> {
  const need = new Set<string>();
  for (const t of service.tables) {
    const ops = t.resource?.ops;
    if (!ops) continue;
    // A list-only resource describes its rows as list items; an unreferenced Row schema is noise to linters.
    if (ops.read || ops.create || ops.update) need.add(t.name);
    for (const r of expandableRelations(t)) need.add(r.target);
  }
  return need;
}

function tagDescription(docs: (string | undefined)[]): string | undefined {
  const parts = docs.filter((d): d is string => d !== undefined && d.trim() !== "");
  return parts.length > 0 ? docText(parts.join("\n\n")) : undefined;
}

/**
 * The OpenAPI 3.1 document of `service`: one path per served collection
 * and item, one operation per exposed operation, schemas for rows, list
 * pages, bodies and expansions, the problem document on every refusal, and
 * the `api` block's security schemes declared once. With an `auth` block,
 * what its rules say (compiler/backends/openapi/access.ts,
 * docs/decisions/1367-access-rules.md): the bearer scheme, and on each
 * operation its requirement, the 401 and 403 answers and the roles granted
 * it; without one, none of that. Deterministic: the same descriptor gives
 * the same document, member for member.
 */
export function openApiDocument(service: ServiceDescriptor, options: OpenApiOptions = {}): OpenApiDocument {
  const info: OpenApiDocument["info"] = { title: service.title, version: service.version };
  if (options.description !== undefined) info.description = docText(options.description);
  if (options.license !== undefined) info.license = { name: options.license, identifier: options.license };
  const tags: Tag[] = [];
  const paths: Record<string, PathItem> = {};
  const schemas: Record<string, JsonSchema> = {};
  const needRows = rowTables(service);
  const shared = new SharedComponents();
  const gov = governance(service);

  for (const table of service.tables) {
    const res = table.resource;
    const names = schemaNames(table);
    if (needRows.has(table.name)) schemas[names.row] = rowSchema(table, shared);
    if (!res) continue;
    const tag: Tag = { name: table.name };
    const description = tagDescription([table.doc, res.doc]);
    if (description !== undefined) tag.description = description;
    tags.push(tag);

    // A read is the one place a row and its expansions are described together (a list item carries its own).
    // A read and a list item describe a row's expansions together, through this one schema.
    if ((res.ops.read || res.ops.list) && expandableRelations(table).length > 0)
      schemas[names.expansions] = expansionsSchema(service, table);
    // A projected read answers a list item's shape (only the key required).
    if (res.ops.list || res.ops.read) schemas[names.listItem] = listItemSchema(table, shared);
    if (res.ops.list) {
      schemas[names.list] = listSchema(table, shared);
      if (vocabulary(table).filterable.length > 0) {
        schemas[names.filter] = filterTreeSchema(table, `#/components/schemas/${names.filter}`, shared);
      }
    }
    if (res.ops.create) schemas[names.create] = createSchema(table, shared);
    if (res.ops.update) schemas[names.update] = updateSchema(table, shared);

    for (const action of res.actions ?? []) {
      const an = actionTypeNames(table.name, action.name);
      schemas[an.input] = actionInputSchema(action);
      if (action.output) schemas[an.output] = actionOutputSchema(action, action.output);
    }

    const p = resourcePaths(table, ref(names.filter), shared, gov);
    if (p.collection) paths[res.path] = p.collection;
    if (p.events) paths[`${res.path}/events`] = p.events;
    if (p.item) paths[itemPathTemplate(table, res.path)] = p.item;
    Object.assign(paths, p.actions);
  }
  Object.assign(schemas, shared.schemas, problemSchemas());

  const doc: OpenApiDocument = {
    openapi: "3.1.0",
    info,
    // The document is served by the service itself: its API lives at the same origin.
    servers: [{ url: "/", description: "The server that serves this document." }],
    security: [],
    tags,
    paths,
    components: {
      schemas,
      responses: gov ? { ...problemResponses(), ...accessResponses(service.title) } : problemResponses(),
    },
  };
  if (Object.keys(shared.parameters).length > 0) doc.components.parameters = shared.parameters;
  if (Object.keys(shared.headers).length > 0) doc.components.headers = shared.headers;
  if (service.securitySchemes.length > 0 || gov?.declare) {
    const schemes: Record<string, SecurityScheme> = {};
    for (const s of service.securitySchemes) {
      const scheme: SecurityScheme = { type: "http", scheme: s.scheme };
      if (s.bearerFormat !== undefined) scheme.bearerFormat = s.bearerFormat;
      schemes[s.name] = scheme;
    }
    // The auth block's jwt, when the api block declares no bearer scheme to name (docs/decisions/1367-access-rules.md).
    if (gov?.declare && gov.scheme !== undefined) schemes[gov.scheme] = bearerScheme(service);
    doc.components.securitySchemes = schemes;
  }
  return doc;
}

/**
 * The OpenAPI document of a valid schema: its descriptor's, with the `api`
 * block's doc comment as `info.description`.
 * @param service the schema's descriptor, when the caller built it already
 * @throws Error when the schema does not resolve (validate it first)
 */
export function emitOpenApi(schema: Schema, service: ServiceDescriptor = buildDescriptor(schema)): OpenApiDocument {
  const options: OpenApiOptions = {};
  if (schema.api?.doc !== undefined) options.description = schema.api.doc;
  if (schema.api?.license !== undefined) options.license = schema.api.license;
  return openApiDocument(service, options);
}

/** Options of {@link printOpenApi}. */
export interface PrintOptions {
  /** Two-space indentation for reading and reviewing; default false: one line, as the service serves it. */
  pretty?: boolean;
}

/**
 * The document as `resc openapi` prints it: JSON and a final newline, on
 * one line unless `pretty` (docs/decisions/1320-openapi-shared-components.md:
 * the indentation alone was two fifths of the bytes, and every consumer of
 * the document is a program).
 */
export function printOpenApi(doc: OpenApiDocument, options: PrintOptions = {}): string {
  return (options.pretty ? JSON.stringify(doc, null, 2) : JSON.stringify(doc)) + "\n";
}
