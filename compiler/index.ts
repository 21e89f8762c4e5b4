/**
 * The compiler's public surface: `.resource` text → validated IR →
 * descriptors, SQL DDL and the Hono module. The CLI and `resc dev` use
 * these; nothing here touches the file system except `generate.ts`.
 */
import { parse } from "../grammar/index.js";
import type { Diagnostic, Schema } from "./ir.js";
import { validate } from "./validate/index.js";
import { validateIntact } from "./validate/partial.js";

export { validate, hasErrors } from "./validate/index.js";
export { buildDescriptor, resolveLimits } from "./descriptor.js";
export { emitSql } from "./backends/sql/index.js";
export { emitHono, honoPackage, type HonoOptions } from "./backends/hono/index.js";
export {
  emitOpenApi,
  openApiDocument,
  printOpenApi,
  type PrintOptions as OpenApiPrintOptions,
  type OpenApiOptions,
  type OpenApiDocument,
  type JsonSchema,
} from "./backends/openapi/index.js";
export { emitClient, clientLayout, envPrefix, type ClientLayout } from "./backends/client/index.js";
export {
  emitCommandTree,
  resourceSpecs,
  type CommandTreeOptions,
  type ResourceSpec,
} from "./backends/cli-tree/index.js";
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
  /** Parser diagnostics, then the validator's (over the intact declarations when parsing failed), each list in source order. */
  diagnostics: Diagnostic[];
  /** No diagnostic of severity `error`: the backends may run. */
  ok: boolean;
}

/**
 * Parses and validates `text`, read from `file` (the name shown in
 * diagnostics). With syntax errors, the rules run over the declarations no
 * error touched, minus those that look across declarations, so a syntax
 * slip does not cascade into rule violations and does not hide the ones
 * elsewhere (docs/decisions/0230-rules-beside-syntax-errors.md). Never
 * throws on user input.
 */
export function compileSource(text: string, file: string): CompileResult {
  const parsed = parse(text, file);
  const syntaxErrors = parsed.diagnostics.filter((d) => d.severity === "error");
  const rules = syntaxErrors.length > 0 ? validateIntact(parsed.schema, syntaxErrors) : validate(parsed.schema);
  const diagnostics = [...parsed.diagnostics, ...rules];
  return { schema: parsed.schema, diagnostics, ok: !diagnostics.some((d) => d.severity === "error") };
}
