/**
 * Reading a document whose shared parts sit under `components` (decision
 * 1320): parameters and schemas by `$ref`, resolved one level, as the tests
 * look at them.
 */
import type { JsonSchema, OpenApiDocument } from "../../compiler/index.js";
import type { Parameter, ParameterRef } from "../../compiler/backends/openapi/types.js";

/** `list` with every `$ref` replaced by the parameter it names. */
export function params(doc: OpenApiDocument, list: readonly (Parameter | ParameterRef)[] | undefined): Parameter[] {
  return (list ?? []).map((p) => {
    if (!("$ref" in p)) return p;
    const found = doc.components.parameters?.[p.$ref.replace("#/components/parameters/", "")];
    if (!found) throw new Error(`unresolvable parameter ${p.$ref}`);
    return found;
  });
}

/** `schema`, or the component schema its `$ref` names. */
export function schemaOf(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  const ref = schema?.$ref;
  if (ref === undefined || !ref.startsWith("#/components/schemas/")) return schema;
  return doc.components.schemas[ref.replace("#/components/schemas/", "")];
}

/** A parameter's description with that of its shared schema (where a column filter's operators are listed). */
export function fullDescription(doc: OpenApiDocument, p: Parameter): string {
  return [p.description ?? "", schemaOf(doc, p.schema)?.description ?? ""].join("\n\n");
}
