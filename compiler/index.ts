/**
 * The compiler's public surface: `.resource` text → validated IR →
 * descriptors, SQL DDL and the Hono module. The CLI and `resc dev` use
 * these; nothing here touches the file system except `generate.ts`.
 */
import { parse } from "../grammar/index.js";
import type { Diagnostic, Schema } from "./ir.js";
import { validate } from "./validate/index.js";

export { validate, hasErrors } from "./validate/index.js";
export { buildDescriptor, resolveLimits } from "./descriptor.js";
export { emitSql } from "./backends/sql/index.js";
export { emitHono, honoPackage, type HonoOptions } from "./backends/hono/index.js";
export {
  emitOpenApi,
  openApiDocument,
  printOpenApi,
  type OpenApiOptions,
  type OpenApiDocument,
  type JsonSchema,
} from "./backends/openapi/index.js";
export { emitClient, clientLayout, envPrefix, type ClientLayout } from "./backends/client/index.js";
export { emitCommandTree, resourceSpecs, type CommandTreeOptions, type ResourceSpec } from "./backends/cli-tree/index.js";
export {
  writeGenerated,
  checkGenerated,
  orphanedGenerated,
  removeOrphaned,
  emitAll,
  BACKENDS,
  GENERATED_HEADER,
  type Backend,
} from "./generate.js";
export type { GeneratedFile } from "./generated-file.js";
export type * from "./ir.js";

/** The outcome of compiling one schema text. */
export interface CompileResult {
  /** The schema as far as it could be built (complete when `ok`). */
  schema: Schema;
  /** Parser diagnostics, then (when parsing had no error) the validator's, each list in source order. */
  diagnostics: Diagnostic[];
  /** No diagnostic of severity `error`: the backends may run. */
  ok: boolean;
}

/**
 * Parses and validates `text`, read from `file` (the name shown in
 * diagnostics). The validator runs only on a schema that parsed without
 * error, so a syntax slip does not cascade into rule violations. Never
 * throws on user input.
 */
export function compileSource(text: string, file: string): CompileResult {
  const parsed = parse(text, file);
  const parseFailed = parsed.diagnostics.some((d) => d.severity === "error");
  const diagnostics = parseFailed ? parsed.diagnostics : [...parsed.diagnostics, ...validate(parsed.schema)];
  return { schema: parsed.schema, diagnostics, ok: !diagnostics.some((d) => d.severity === "error") };
}
