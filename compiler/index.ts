/**
 * The compiler's public surface: `.resource` text → validated IR →
 * descriptors, SQL DDL and the Hono module. The CLI and `resc dev` use
 * these; nothing here touches the file system except `generate.ts`.
 */
export { validate, hasErrors } from "./validate/index.js";
export { compileSource, type CompileResult } from "./compile.js";
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
export type * from "../language/ir.js";
