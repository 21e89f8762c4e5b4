/**
 * The paths of one resource: one operation per exposed operation and
 * nothing else (spec: Generated operations rule 1, guarantee 4), with the
 * success shapes and statuses of docs/http.md "Status codes" and a problem
 * response for every refusal the handler can give
 * (docs/decisions/1000-openapi-description.md, "Operations").
 */
import type { ActionDescriptor, ColumnDescriptor, TableDescriptor } from "../../../runtime/descriptor.js";
import { actionMethodName, actionRoute, actionTypeNames } from "../../actions.js";
import { docText } from "./markdown.js";
import { conflictKeys, vocabulary } from "../../../runtime/query/vocabulary.js";
import type { SharedComponents } from "./components.js";
import { pascalCase } from "../hono/names.js";
import {
  eventsParameters,
  filterParameters,
  compositeKeyParameters,
  idParameter,
  listParameters,
  selectParameter,
  sharedExpand,
} from "./parameters.js";
import { PROBLEM_STATUSES as P, problemRefs } from "./problems.js";
import { governOperation, type Governance, type OperationReach } from "./access.js";
import { expandableRelations, ref, schemaNames } from "./rows.js";
import type { JsonSchema, Operation, Parameter, ParameterRef, PathItem, Response } from "./types.js";
import { keySchema, valueSchema } from "./values.js";

const JSON_TYPE = "application/json";

/** The refusals of a write that carries a body and names no single row: create, and a filtered update. */
const BODY_WRITE_PROBLEMS = [
  P.badRequest,
  P.conflict,
  P.tooLarge,
  P.unsupportedMedia,
  P.unprocessable,
  P.writeFault,
  P.unavailable,
  P.timeout,
];

/** The security requirements of a resource, placed on each of its operations (spec: Authentication rule 3). */
function security(table: TableDescriptor): Record<string, string[]>[] | undefined {
  const reqs = table.resource?.security ?? [];
  return reqs.length > 0 ? reqs.map((r) => ({ [r.scheme]: [...r.scopes] })) : undefined;
}

/** How each generated operation meets the rows, by its operationId prefix; an action says its own. */
const REACH: Readonly<Record<string, OperationReach>> = {
  list: "list",
  watch: "events",
  read: "item",
  update: "item",
  delete: "item",
  create: "create",
  updateWhere: "filtered",
  deleteWhere: "filtered",
};

/**
 * One operation of `table`; with `gov` (the schema has an `auth` block), what
 * the access rules say of `rule`, the operation as they name it
 * (docs/decisions/1367-access-rules.md).
 * @param reach how it meets the rows; default by `op`, else `collection`
 */
function operation(
  table: TableDescriptor,
  op: string,
  summary: string,
  rest: Omit<Operation, "operationId" | "summary" | "tags">,
  gov: Governance | undefined,
  rule: string,
  reach: OperationReach = REACH[op] ?? "collection",
): Operation {
  const o: Operation = { operationId: `${op}${pascalCase(table.name)}`, summary, tags: [table.name], ...rest };
  const sec = security(table);
  if (sec) o.security = sec;
  if (gov) governOperation(o, table, rule, reach, gov);
  return o;
}

/** The path item of the collection and of the item, each present only with an operation on it, and one per declared action by route. */
export interface ResourcePaths {
  collection?: PathItem;
  item?: PathItem;
  /** `GET <path>/events`, the change feed (docs/decisions/1337-change-feed.md). */
  events?: PathItem;
  actions?: Record<string, PathItem>;
}

/**
 * The headers and parameters of conditional requests, declared once
 * (docs/decisions/1329-conditional-requests.md): the `ETag` of item answers,
 * `If-None-Match` on a read, `If-Match` on a write.
 */
function conditional(shared: SharedComponents) {
  return shared.memo("conditional", () => ({
    etag: shared.header("ETag", {
      description:
        "The version of the row this answer shows (strong). Send it back as If-Match to write only that version, or as If-None-Match to read only a newer one.",
      schema: { type: "string" },
    }),
    ifNoneMatch: shared.parameter("IfNoneMatch", {
      name: "If-None-Match",
      in: "header",
      description: "ETags of copies the client holds; when one is current the answer is 304 without a body.",
      schema: { type: "string" },
    }),
    prefer: shared.parameter("Prefer", {
      name: "Prefer",
      in: "header",
      description:
        "`resolution=merge-duplicates` or `resolution=ignore-duplicates`: an upsert on the key `on_conflict` names (docs/decisions/1332-upsert.md).",
      schema: { type: "string", enum: ["resolution=merge-duplicates", "resolution=ignore-duplicates"] },
    }),
    applied: shared.header("PreferenceApplied", {
      description: "The resolution the upsert applied.",
      schema: { type: "string" },
    }),
    idempotencyKey: shared.parameter("IdempotencyKey", {
      name: "Idempotency-Key",
      in: "header",
      description:
        "Makes the request safe to retry (docs/decisions/1335-idempotency-keys.md): a retry with the same key and the same request gets the first answer (with Idempotent-Replayed: true) and writes nothing again; the same key with another request is a 422; a retry while the first still runs is a 409. Kept 24 hours by default.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    }),
    replayed: shared.header("IdempotentReplayed", {
      description:
        "`true` when this is the stored answer to an earlier request with the same Idempotency-Key; absent otherwise.",
      required: false,
      schema: { type: "string", enum: ["true"] },
    }),
    ifMatch: shared.parameter("IfMatch", {
      name: "If-Match",
      in: "header",
      description:
        "Writes only while the row is at one of these versions (an ETag of a read or a write); otherwise 412 and nothing is written. `*` matches any current row.",
      schema: { type: "string" },
    }),
  }));
}

/** A read's row: the row, plus the expansions where the table has any. */
function readSchema(table: TableDescriptor): JsonSchema {
  const names = schemaNames(table);
  return expandableRelations(table).length > 0 ? { allOf: [ref(names.row), ref(names.expansions)] } : ref(names.row);
}

/**
 * The operations of `table`'s resource by path.
 * @param treeSchema the `$ref` of the table's `?filter=` tree schema
 * @param shared where parameters common to several operations are declared
 * @param gov how the schema's `auth` block governs operations (docs/decisions/1367-access-rules.md); absent without one
 */
export function resourcePaths(
  table: TableDescriptor,
  treeSchema: JsonSchema,
  shared: SharedComponents,
  gov?: Governance,
): ResourcePaths {
  const res = table.resource;
  if (!res) return {};
  const names = schemaNames(table);
  const rowContent = { [JSON_TYPE]: { schema: ref(names.row) } };
  const collection: PathItem = {};
  const item: PathItem = {};
  const cond = conditional(shared);

  if (res.ops.list) {
    const l = res.limits;
    collection.get = operation(
      table,
      "list",
      `List ${table.name}`,
      {
        description: `At most ${l.maxFilters} filter conditions (all filters together) and ${l.maxSortTerms} sort terms.`,
        parameters: listParameters(table, treeSchema, shared),
        responses: {
          "200": { description: `A page of ${table.name}.`, content: { [JSON_TYPE]: { schema: ref(names.list) } } },
          ...problemRefs([P.badRequest, P.hookMisconfigured, P.unavailable, P.timeout]),
        },
      },
      gov,
      "list",
    );
  }
  if (res.ops.create) {
    // A composite key's Location names its item path only where a read serves it (decision 1376).
    const single = table.primaryKey.length === 1 || (table.primaryKey.length > 1 && res.ops.read);
    const batch: JsonSchema = { type: "array", items: ref(names.create), minItems: 1, maxItems: res.limits.maxBatch };
    const keys = conflictKeys(table);
    const upsert: (Parameter | ParameterRef)[] =
      keys.length === 0
        ? []
        : [
            {
              name: "on_conflict",
              in: "query",
              description: `Upsert: the key a row may conflict on, one of ${keys.map((k) => `\`${k.join(",")}\``).join(", ")} (default the primary key). Needs Prefer: resolution=merge-duplicates (overwrite the columns an update may write) or resolution=ignore-duplicates (keep the stored row).`,
              schema: { type: "string", enum: keys.map((k) => k.join(",")) },
            },
            cond.prefer,
          ];
    collection.post = operation(
      table,
      "create",
      `Create a row in ${table.name}`,
      {
        parameters: [...upsert, cond.idempotencyKey],
        description: `Answers the stored row, without expansions. A JSON array of at most ${res.limits.maxBatch} rows creates them all in one transaction, or none, and answers the stored rows in request order; a problem names its element (\`body[3].title\`).`,
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: { oneOf: [ref(names.create), batch] } } } },
        responses: {
          "201": {
            description: "The stored row, or the stored rows of an array in its order (no Location or ETag then).",
            ...(single
              ? {
                  headers: {
                    Location: shared.memo("Location", () =>
                      shared.header("Location", {
                        description: "The new row's path, the collection's path and /{id}.",
                        schema: { type: "string", format: "uri-reference" },
                      }),
                    ),
                    ETag: cond.etag,
                    "Idempotent-Replayed": cond.replayed,
                  },
                }
              : { headers: { ETag: cond.etag, "Idempotent-Replayed": cond.replayed } }),
            content: { [JSON_TYPE]: { schema: { oneOf: [ref(names.row), { type: "array", items: ref(names.row) }] } } },
          },
          ...(upsert.length > 0
            ? {
                "200": {
                  description:
                    "An upsert: the merged row (one object), or the rows stored or merged, in request order (an array; rows ignore-duplicates kept are left out).",
                  headers: { "Preference-Applied": cond.applied },
                  content: {
                    [JSON_TYPE]: { schema: { oneOf: [ref(names.row), { type: "array", items: ref(names.row) }] } },
                  },
                },
                "204": {
                  description: "An upsert of one object with resolution=ignore-duplicates that kept the stored row.",
                  headers: { "Preference-Applied": cond.applied },
                },
              }
            : {}),
          ...problemRefs(BODY_WRITE_PROBLEMS),
        },
      },
      gov,
      "create",
    );
  }
  if (res.ops.read) {
    const expand = sharedExpand(table, shared);
    item.get = operation(
      table,
      "read",
      `Read one row of ${table.name}`,
      {
        description: expand
          ? "The row with this key, `select` narrowing it and `expand` embedding relations, as on a list."
          : "The row with this key, `select` narrowing it as on a list.",
        parameters: expand
          ? [selectParameter(table), expand, cond.ifNoneMatch]
          : [selectParameter(table), cond.ifNoneMatch],
        responses: {
          "200": {
            description: "The row: every column, or with ?select the chosen ones and the key (as a list item).",
            headers: { ETag: cond.etag },
            content: {
              [JSON_TYPE]: { schema: { anyOf: [readSchema(table), ref(schemaNames(table).listItem)] } },
            },
          },
          "304": { description: "The copy If-None-Match names is current; no body.", headers: { ETag: cond.etag } },
          ...problemRefs([P.badRequest, P.notFound, P.hookMisconfigured, P.unavailable, P.timeout]),
        },
      },
      gov,
      "read",
    );
  }
  if (res.ops.update) {
    item.patch = operation(
      table,
      "update",
      `Update a row of ${table.name}`,
      {
        description: "Answers the written row, without expansions.",
        parameters: [cond.ifMatch],
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(names.update) } } },
        responses: {
          "200": { description: "The written row.", headers: { ETag: cond.etag }, content: rowContent },
          ...problemRefs([
            P.badRequest,
            P.notFound,
            P.conflict,
            P.preconditionFailed,
            P.tooLarge,
            P.unsupportedMedia,
            P.unprocessable,
            P.writeFault,
            P.unavailable,
            P.timeout,
          ]),
        },
      },
      gov,
      "update",
    );
  }
  if (res.ops.delete) {
    item.delete = operation(
      table,
      "delete",
      `Delete a row of ${table.name}`,
      {
        // On a soft-delete table the handler marks the row instead (runtime/http/write.ts, handleDelete).
        description:
          table.softDeleteColumn !== undefined
            ? "Marks the row as removed: it is kept, and no read returns it any more. A row already removed is a 404."
            : "Deletes the row.",
        parameters: [cond.ifMatch],
        responses: {
          "204": { description: "Deleted." },
          ...problemRefs([
            P.badRequest,
            P.notFound,
            P.stillReferenced,
            P.preconditionFailed,
            P.writeFault,
            P.unavailable,
            P.timeout,
          ]),
        },
      },
      gov,
      "delete",
    );
  }

  // docs/decisions/1333-filtered-writes.md: opt-in, on the collection.
  if (res.filteredWrites && (res.ops.update || res.ops.delete)) {
    const maxAffected = shared.parameter("MaxAffected", {
      name: "Prefer",
      in: "header",
      description:
        "`max-affected=N`: refuses the request (400, type /problems/max-affected, nothing written) when more than N rows would change.",
      schema: { type: "string", pattern: "^max-affected=\\d+$" },
    });
    const filters = [...filterParameters(table, treeSchema, shared), maxAffected];
    const note =
      "At least one filter or search is required; every matching row the caller may reach is changed, in one transaction.";
    if (res.ops.update)
      collection.patch = operation(
        table,
        "updateWhere",
        `Update every matching row of ${table.name}`,
        {
          description: `Sets the fields given on every row the filters match. ${note}`,
          parameters: filters,
          requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(names.update) } } },
          responses: {
            "200": {
              description: "The written rows.",
              content: { [JSON_TYPE]: { schema: { type: "array", items: ref(names.row) } } },
            },
            ...problemRefs(BODY_WRITE_PROBLEMS),
          },
        },
        gov,
        "update",
      );
    if (res.ops.delete)
      collection.delete = operation(
        table,
        "deleteWhere",
        `Delete every matching row of ${table.name}`,
        {
          description: `Deletes every row the filters match and answers their keys. ${note}`,
          parameters: filters,
          responses: {
            "200": {
              description: "The keys of the removed rows.",
              content: { [JSON_TYPE]: { schema: { type: "array", items: { type: "object" } } } },
            },
            ...problemRefs([P.badRequest, P.stillReferenced, P.writeFault, P.unavailable, P.timeout]),
          },
        },
        gov,
        "delete",
      );
  }

  const out: ResourcePaths = {};
  if (Object.keys(collection).length > 0) out.collection = collection;
  const keyColumnSchema = (name: string): JsonSchema => {
    const key = vocabulary(table).visible.get(name) ?? table.columns.find((c) => c.name === name);
    if (!key) throw new Error(`table ${table.name} has no primary-key column ${name}`);
    return keySchema(key);
  };
  const id = (): Parameter => idParameter(table, keyColumnSchema(table.primaryKey[0]));
  // A composite key is one path parameter per key column (docs/decisions/1376-composite-key-address.md).
  const itemParameters = (): Parameter[] =>
    table.primaryKey.length > 1 ? compositeKeyParameters(table, keyColumnSchema) : [id()];
  if (Object.keys(item).length > 0) out.item = { parameters: itemParameters(), ...item };
  if (res.events && res.ops.list) out.events = { get: eventsOperation(table, treeSchema, shared, gov) };
  for (const action of res.actions ?? []) {
    const post = actionOperation(table, action, cond, gov);
    (out.actions ??= {})[actionRoute(res.path, action)] =
      action.target === "item" ? { parameters: [id()], post } : { post };
  }
  return out;
}

/** One message of the change feed: its `event` and the JSON its `data` carries. */
function feedMessage(event: string | string[], data: JsonSchema, what: string): JsonSchema {
  return {
    type: "object",
    description: what,
    properties: {
      id: { type: "string", description: "The position to resume from (Last-Event-ID)." },
      event: typeof event === "string" ? { const: event } : { enum: event },
      data,
    },
    required: ["event", "data"],
  };
}

/**
 * `GET <path>/events` (docs/decisions/1337-change-feed.md): a Server-Sent
 * Events stream. OpenAPI 3.1 has no schema for one message of a stream, so
 * the `text/event-stream` schema describes one message by its fields.
 */
function eventsOperation(
  table: TableDescriptor,
  treeSchema: JsonSchema,
  shared: SharedComponents,
  gov: Governance | undefined,
): Operation {
  const row = ref(schemaNames(table).row);
  const visible = vocabulary(table).visible;
  const keyColumns = table.primaryKey.flatMap((k) => {
    const c = visible.get(k);
    return c ? [c] : [];
  });
  const key: JsonSchema = {
    type: "object",
    description: "The row's key.",
    properties: Object.fromEntries(keyColumns.map((c) => [c.name, keySchema(c)])),
    required: keyColumns.map((c) => c.name),
  };
  const text = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: "object", properties });
  return operation(
    table,
    "watch",
    `Follow the changes of ${table.name}`,
    {
      description:
        "Server-Sent Events: each change of a row the filters select and the caller may read, as it commits, by whoever wrote it. " +
        "A create or update carries the row as a read returns it (`select` applies); a delete, and a `leave` (an update took the row out of the filters or the caller's scope), carry its key. " +
        "`reload`: the position resumed from is no longer kept; list again. `reconnect`: the service ends the stream (a slow reader, a shutdown); resume with the last id. " +
        "A comment or an `id:` line keeps an idle stream open.",
      parameters: eventsParameters(table, treeSchema, shared),
      responses: {
        "200": {
          description: "The stream; it ends only with a `reconnect` event or a dropped connection.",
          content: {
            "text/event-stream": {
              schema: {
                description: "One message of the stream, by its fields; `data` is JSON.",
                oneOf: [
                  feedMessage(["create", "update"], row, "A row created, or updated (or entering the filters)."),
                  feedMessage(["delete", "leave"], key, "A row deleted, or no longer selected."),
                  feedMessage("reload", text({ detail: { type: "string" } }), "List again, then follow."),
                  feedMessage(
                    "reconnect",
                    text({ reason: { enum: ["slow-subscriber", "shutdown"] }, detail: { type: "string" } }),
                    "The stream ends; reconnect with the last id.",
                  ),
                ],
              },
            },
          },
        },
        ...problemRefs([P.badRequest, P.hookMisconfigured, P.unavailable, P.timeout]),
      },
    },
    gov,
    "events",
  );
}

/** The `POST` of one declared action (docs/decisions/1334-declared-actions.md). */
function actionOperation(
  table: TableDescriptor,
  action: ActionDescriptor,
  cond: ReturnType<typeof conditional>,
  gov: Governance | undefined,
): Operation {
  const names = actionTypeNames(table.name, action.name);
  const item = action.target === "item";
  const on = item ? `one row of ${table.name}` : table.name;
  const lead = action.doc === undefined ? [] : [docText(action.doc)];
  const how = item
    ? "Runs in one transaction on the row, locked; a row the caller may not read is a 404."
    : "Runs in one transaction.";
  const success: Record<string, Response> = action.output
    ? {
        "200": {
          description: "The action's output.",
          headers: { "Idempotent-Replayed": cond.replayed },
          content: { [JSON_TYPE]: { schema: ref(names.output) } },
        },
      }
    : item
      ? {
          "200": {
            description: "The row as it is after the action, as a read returns it (without expansions).",
            headers: { ETag: cond.etag, "Idempotent-Replayed": cond.replayed },
            content: { [JSON_TYPE]: { schema: ref(schemaNames(table).row) } },
          },
          "204": { description: "The action removed the row." },
        }
      : { "204": { description: "Done." } };
  // Keyed by status, so an item action's two extra refusals fall into place.
  const refusals = item ? [...BODY_WRITE_PROBLEMS, P.notFound, P.preconditionFailed] : BODY_WRITE_PROBLEMS;
  const required = action.input.some((f) => !f.nullable);
  return operation(
    table,
    actionMethodName(action.name),
    `${pascalCase(action.name)}: an action on ${on}`,
    {
      description: [...lead, how].join("\n\n"),
      parameters: item ? [cond.ifMatch, cond.idempotencyKey] : [cond.idempotencyKey],
      requestBody: { required, content: { [JSON_TYPE]: { schema: ref(names.input) } } },
      responses: { ...success, ...problemRefs(refusals) },
    },
    gov,
    action.name,
    item ? "item" : "collection",
  );
}

/**
 * `<Table><Action>Input`: the action's input, every declared field, a
 * nullable one optional; unknown fields are refused.
 */
export function actionInputSchema(action: ActionDescriptor): JsonSchema {
  const s: JsonSchema = {
    type: "object",
    description: `The input of action ${action.name}.`,
    properties: Object.fromEntries(action.input.map((f) => [f.name, valueSchema(f, "body")])),
    additionalProperties: false,
  };
  const required = action.input.filter((f) => !f.nullable).map((f) => f.name);
  if (required.length > 0) s.required = required;
  return s;
}

/** `<Table><Action>Output`: the declared output, every field present. */
export function actionOutputSchema(action: ActionDescriptor, output: readonly ColumnDescriptor[]): JsonSchema {
  const s: JsonSchema = {
    type: "object",
    description: `The output of action ${action.name}.`,
    properties: Object.fromEntries(output.map((f) => [f.name, valueSchema(f, "row")])),
  };
  if (output.length > 0) s.required = output.map((f) => f.name);
  return s;
}
