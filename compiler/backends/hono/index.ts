/**
 * The Hono backend: a TypeScript module per schema that serves it through
 * the runtime. It holds data and types only (the descriptor as a constant,
 * the row/create/update types of each resource) and a `mount` function
 * delegating to `mountService`; no logic is copied into generated files.
 *
 * Layout under the `generate` block's dir, in package `<package>` (default
 * `api`): `types.ts` (the resource types), `service.ts` (the descriptor and
 * the schema type the query builder is generic over),
 * `index.ts` (re-exports and `mount`). Generated code imports only `hono`
 * and `resc/runtime`. Output is printed in prettier's final form (nothing
 * formats it afterwards; test/golden-format.test.ts holds it to that) and
 * depends only on the schema, so `resc generate --check` can compare bytes
 * (docs/decisions/0210-generated-module.md, 1321-generated-code-in-final-form.md).
 */
import type { ServiceDescriptor } from "../../../runtime/descriptor.js";
import type { Schema } from "../../../language/ir.js";
import { buildDescriptor } from "../../descriptor.js";
import { jsonConstant } from "../ts-text.js";
import { finalForm } from "../final-form.js";
import { rowTypes } from "./row-types.js";
import { schemaType, schemaTypeName } from "./schema-type.js";
import { generatedHeader, type GeneratedFile } from "../../generated-file.js";
import { openApiModule } from "../openapi/module.js";

/** Options of {@link emitHono}. */
export interface HonoOptions {
  /** Module specifier generated code imports the runtime from; default `resc/runtime`. */
  runtimeModule?: string;
  /** The schema's descriptor, when the caller built it already (`resc generate` builds it once for every backend). */
  service?: ServiceDescriptor;
}

/** The package directory of the Hono module: the `generate` block's `package`, default `api`. */
export function honoPackage(schema: Schema): string {
  return schema.generate?.package ?? "api";
}

/**
 * The generated Hono module of a valid schema, as files relative to the
 * `generate` block's dir, in a fixed order.
 * @throws Error when the schema does not resolve (validate it first)
 */
export async function emitHono(schema: Schema, options: HonoOptions = {}): Promise<GeneratedFile[]> {
  const runtime = JSON.stringify(options.runtimeModule ?? "resc/runtime");
  const service = options.service ?? buildDescriptor(schema);
  const pkg = honoPackage(schema);
  const top = generatedHeader(schema);

  const declarations = service.tables.map(rowTypes).filter((t) => t !== "");
  const usesJson = declarations.some((d) => /\bJsonValue\b/.test(d));
  const typesText = [top, usesJson ? `import type { JsonValue } from ${runtime};` : "", ...declarations].join("\n\n");

  // The schema type precedes the constant, which stays the file's last statement.
  const schemaName = schemaTypeName(pkg);
  const schemaText = schemaType(service, schemaName);
  const serviceImports = /\bJsonValue\b/.test(schemaText)
    ? "ColumnType, JsonValue, TypedService"
    : "ColumnType, TypedService";
  const serviceText = [
    top,
    `import type { ${serviceImports} } from ${runtime};\n`,
    schemaText,
    "",
    "/** Every table of the schema as the runtime sees it, typed for `createQueryBuilder`. */",
    jsonConstant(`export const service: TypedService<${schemaName}>`, service),
  ].join("\n");

  const indexText = [
    top,
    `import type { Hono } from "hono";`,
    `import { mountService, type MountOptions, type MountResult } from ${runtime};`,
    `import { service, type ${schemaName} } from "./service.js";`,
    declarations.length > 0 ? `export type * from "./types.js";` : "",
    `export { service };`,
    `export type { ${schemaName} };\n`,
    "/**",
    " * Mounts every exposed operation of the schema on `app`.",
    " * @returns `{ ok: true }`, or the registration errors (nothing is mounted then)",
    " */",
    "export function mount(app: Hono, options: MountOptions): MountResult {",
    "  return mountService(app, service, options);",
    "}",
  ].join("\n");

  const files: GeneratedFile[] = [];
  if (declarations.length > 0) files.push({ path: `${pkg}/types.ts`, contents: typesText });
  files.push({ path: `${pkg}/service.ts`, contents: serviceText }, { path: `${pkg}/index.ts`, contents: indexText });
  files.push(openApiModule(schema, pkg, top, runtime, service));
  // The document and the descriptor are already final (JSON strings); the declarations are re-indented.
  return Promise.all(
    files.map(async (f) => (f.path.endsWith("openapi.ts") ? f : { path: f.path, contents: await finalForm(f.contents) })),
  );
}
