/**
 * The typed client backend (spec: Typed client): a package of three files
 * that imports nothing, not even from resc, so it runs on Node 20 and in
 * browsers with only `fetch`, `URL` and `AbortSignal`:
 *
 * - `http.ts`: the fixed core (the client value, transport, problem
 *   documents, filter types, URL serialization, cursor walking);
 * - `types.ts`: per served table, the row, body and vocabulary types;
 * - `index.ts`: one class per resource with one method per exposed
 *   operation, and `Client`.
 *
 * Output is printed in prettier's final form (decision 1321) and depends only on the schema, so
 * `resc generate --check` compares bytes (docs/decisions/1051-typed-client.md).
 */
import type { ServiceDescriptor } from "../../../runtime/descriptor.js";
import type { Schema } from "../../../language/ir.js";
import { buildDescriptor } from "../../descriptor.js";
import { finalForm, finalFormPieces } from "../final-form.js";
import { CLIENT_CORE } from "./core-text.js";
import { generatedHeader, type GeneratedFile } from "../../generated-file.js";
import { resourcesModule } from "./resources.js";
import { typesModule } from "./types.js";

import { joinPath } from "./layout.js";

export { clientLayout, envPrefix, joinPath, type ClientLayout } from "./layout.js";

/**
 * The typed client package of a valid schema, as files under `dir`
 * (relative to the `generate` block's dir, `/`-separated), whatever the
 * `generate` block says; empty when the schema serves no resource.
 * @throws Error when the schema does not resolve (validate it first)
 */
export async function emitClient(
  schema: Schema,
  dir: string,
  service: ServiceDescriptor = buildDescriptor(schema),
): Promise<GeneratedFile[]> {
  if (!service.tables.some((t) => t.resource)) return [];
  const header = generatedHeader(schema);
  // The core (core/http.ts) is embedded as prettier prints it (scripts/embed-cores.mjs): the schema's modules are settled here.
  const [types, index] = await Promise.all([
    finalForm(`${header}\n${typesModule(service)}`),
    finalFormPieces([{ text: header, form: "settle" }, ...resourcesModule(service)]),
  ]);
  return [
    { path: joinPath(dir, "http.ts"), contents: `${header}\n${CLIENT_CORE}` },
    { path: joinPath(dir, "types.ts"), contents: types },
    { path: joinPath(dir, "index.ts"), contents: index },
  ];
}
