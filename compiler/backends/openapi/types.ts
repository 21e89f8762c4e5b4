/**
 * The subset of OpenAPI 3.1 (and of JSON Schema 2020-12, its schema
 * dialect) that the OpenAPI backend writes. Plain JSON data: the document is
 * printed with `JSON.stringify` and handed to the runtime's `mountDocs` as
 * is, so nothing here may hold a function, `undefined` or a class instance.
 */
import type { JsonValue } from "../../../runtime/predicate.js";

/** A JSON Schema `type` name. */
export type JsonType = "string" | "number" | "integer" | "boolean" | "array" | "object" | "null";

/**
 * A JSON Schema (2020-12) as OpenAPI 3.1 uses it. `{}` accepts any JSON
 * value (a jsonb column). Only the keywords the backend writes are listed.
 */
export interface JsonSchema {
  $ref?: string;
  title?: string;
  description?: string;
  type?: JsonType | JsonType[];
  format?: string;
  contentEncoding?: string;
  /** With `contentSchema`: a string whose content is a document of this media type (JSON Schema 2020-12 §8.4). */
  contentMediaType?: string;
  contentSchema?: JsonSchema;
  pattern?: string;
  enum?: (string | null)[];
  const?: JsonValue;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  minProperties?: number;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: JsonValue;
  examples?: JsonValue[];
}

/** A media type entry of a request or response body. */
export interface MediaType {
  schema: JsonSchema;
  /** A valid value (used for the JSON-encoded `?filter=` parameter). */
  example?: JsonValue;
}

/** A query or path parameter (OpenAPI 3.1 Parameter Object). */
export interface Parameter {
  name: string;
  in: "query" | "path" | "header";
  description?: string;
  required?: boolean;
  /** With `schema`: how an array travels (`form`). */
  style?: "form" | "simple";
  /** `true`: one parameter per array item (`?c=a&c=b`); `false`: one comma-joined value. */
  explode?: boolean;
  schema?: JsonSchema;
  /** Instead of `schema`: a JSON-encoded parameter (`?filter=`); its example lives in the media type. */
  content?: Record<string, MediaType>;
  /** A valid value, in the parameter's decoded form (an array for array schemas); only with `schema`. */
  example?: JsonValue;
}

/** A reference to a parameter declared once under `components.parameters` (compiler/backends/openapi/components.ts). */
export interface ParameterRef {
  $ref: string;
}

/** A response header (only `Location` is written). */
export interface Header {
  description: string;
  /** Whether every such response carries it; OpenAPI's default is false. */
  required?: boolean;
  schema: JsonSchema;
}

/** A response, inline or by reference to `components.responses`. */
export type Response =
  | { $ref: string }
  | { description: string; headers?: Record<string, Header | { $ref: string }>; content?: Record<string, MediaType> };

/** An operation of a path (OpenAPI 3.1 Operation Object). */
export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: (Parameter | ParameterRef)[];
  requestBody?: { required: boolean; content: Record<string, MediaType> };
  /** Status code (as a string, e.g. `"200"`) → response. */
  responses: Record<string, Response>;
  /** Alternatives, each a map of scheme name to scopes. */
  security?: Record<string, string[]>[];
}

/** The operations of one path, by lower-case method. */
export interface PathItem {
  parameters?: Parameter[];
  get?: Operation;
  post?: Operation;
  patch?: Operation;
  delete?: Operation;
}

/** An HTTP authentication scheme (OpenAPI Security Scheme Object, type `http`). */
export interface SecurityScheme {
  type: "http";
  scheme: string;
  bearerFormat?: string;
  description?: string;
}

/** A tag: one per resource, grouping its operations on the documentation page. */
export interface Tag {
  name: string;
  description?: string;
}

/**
 * The whole OpenAPI 3.1 document (spec: Versioning, Authentication). A type
 * alias rather than an interface, so it is assignable to the runtime's
 * `OpenApiData` (which has an index signature) without a cast.
 */
export type OpenApiDocument = {
  openapi: "3.1.0";
  info: { title: string; version: string; description?: string; license?: { name: string; identifier?: string } };
  /** Where the API is served; `/`: relative to the document's own URL. */
  servers: { url: string; description?: string }[];
  /** The default security requirement; `[]`: none, each operation of a secured resource names its own. */
  security: Record<string, string[]>[];
  tags: Tag[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    /** Parameters shared by several operations (paging, count, filter groups). */
    parameters?: Record<string, Parameter>;
    responses: Record<string, Response>;
    /** Response headers shared by several operations (`Location`). */
    headers?: Record<string, Header>;
    securitySchemes?: Record<string, SecurityScheme>;
  };
};
