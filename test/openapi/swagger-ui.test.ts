/**
 * Every query parameter of the OpenAPI documents resc serves gets a text box
 * in Swagger UI's "Try it out" on `/docs`, not a file picker
 * (docs/decisions/1255-filter-parameter-text.md). Swagger UI (the
 * swagger-ui-dist the page loads) decides a parameter is a file upload when
 * its schema is a string with `format: binary` or `byte`, or, for OpenAPI
 * 3.1, carries a non-empty `contentMediaType` or `contentEncoding`; this
 * test applies that rule to every parameter, after checking the rule is
 * still what the bundled Swagger UI does.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emitOpenApi } from "../../compiler/backends/openapi/index.js";
import { compileFile } from "../support/service.js";
import { params, schemaOf } from "./deref.js";

type Schema = { type?: string; format?: string; contentMediaType?: string; contentEncoding?: string; $ref?: string };

/** Swagger UI's test for "this parameter is a file to upload" (OpenAPI 3.0 and 3.1 forms). */
function isFileUpload(schema: Schema): boolean {
  const string = schema.type === "string";
  return (
    (string && (schema.format === "binary" || schema.format === "byte")) ||
    (typeof schema.contentMediaType === "string" && schema.contentMediaType !== "") ||
    (typeof schema.contentEncoding === "string" && schema.contentEncoding !== "")
  );
}

describe("Swagger UI's file-upload rule", () => {
  it("is the one the bundled swagger-ui-dist applies", () => {
    const bundle = readFileSync(
      path.join(
        path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json")),
        "swagger-ui-bundle.js",
      ),
      "utf8",
    );
    expect(bundle).toMatch(
      /contentMediaType"\):\w+\.contentMediaType,\w+=\w+\?\w+\.get\("contentEncoding"\):\w+\.contentEncoding/,
    );
    expect(bundle).toContain('["binary","byte"].includes(');
  });
});

describe.each(["spec.resource", "fixtures/pagila/pagila.resource"])("the OpenAPI document of %s", (file) => {
  it("has no query parameter Swagger UI would render as a file upload", async () => {
    const { schema } = await compileFile(file);
    const doc = emitOpenApi(schema);
    const found: string[] = [];
    let filters = 0;
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(
        item as Record<string, { parameters?: Parameters<typeof params>[1] }>,
      )) {
        if (typeof op !== "object" || op === null) continue;
        for (const param of params(doc, op.parameters)) {
          if (param.name === "filter") filters++;
          const shown = schemaOf(doc, param.schema) as Schema | undefined;
          if (shown && isFileUpload(shown)) found.push(`${method} ${p} ${param.name}`);
        }
      }
    }
    expect(filters).toBeGreaterThan(0);
    expect(found).toEqual([]);
  });
});
