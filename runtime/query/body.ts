/**
 * Write bodies: the JSON object of POST (create) and PATCH (update)
 * (spec: Generated operations rules 5 and 6, Column capabilities).
 * Which fields each accepts, and the JSON form of each type, are in
 * docs/decisions/0304-write-bodies.md.
 */
import type { ColumnDescriptor, TableDescriptor } from "../descriptor.js";
import { badRequest, ProblemError, type ProblemItem } from "../problem.js";
import { checkBounds, decodeJsonValue, type WriteValue } from "./codecs.js";
import { ProblemList } from "./problems.js";
import { vocabulary, type TableVocabulary } from "./vocabulary.js";

/** The decoded fields of a body, by column name. */
export type BodyValues = Record<string, WriteValue>;

/** The decoded update body: exactly the fields the request carried. */
export interface UpdateBody {
  fields: BodyValues;
}

type WriteOp = "create" | "update";

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The column `field` names when `op` may write it, or why it may not. A
 * hidden column reads exactly like an unknown field, so a refusal never
 * reveals it (spec: guarantee 2).
 */
function writableColumn(vocab: TableVocabulary, field: string, op: WriteOp): ColumnDescriptor | string {
  const col = vocab.visible.get(field);
  if (!col) return `unknown field ${field}`;
  if (col.computed !== undefined) return `${field} is computed from other columns and cannot be written`;
  if (col.readOnly) return `${field} is read-only; only the server sets it`;
  if (op === "update" && col.immutable) return `${field} is immutable; it cannot change after creation`;
  return col;
}

/** Decodes every field of `body`, recording refusals; shared by create and update. */
function decodeFields(table: TableDescriptor, body: unknown, op: WriteOp, problems: ProblemList): BodyValues {
  if (!isObject(body)) {
    throw badRequest("invalid-body", [{ location: "body", detail: "the body must be a JSON object" }]);
  }
  const vocab = vocabulary(table);
  const writable = op === "create" ? vocab.createWritable : vocab.updateWritable;
  const out: BodyValues = {};
  for (const [field, value] of Object.entries(body)) {
    const col = writableColumn(vocab, field, op);
    if (typeof col === "string") {
      problems.add(`body.${field}`, col, { allowed: writable });
      continue;
    }
    decodeInto(out, col, field, value, problems);
  }
  return out;
}

/** Decodes `value` of `field` by `col`'s type and bounds into `out`, or records why it cannot be at `body.<field>`. */
function decodeInto(
  out: BodyValues,
  col: ColumnDescriptor,
  field: string,
  value: unknown,
  problems: ProblemList,
): void {
  const decoded = decodeJsonValue(col, value);
  const d = decoded.ok ? checkBounds(col, decoded.value) : decoded;
  if (d.ok) out[field] = d.value;
  else problems.add(`body.${field}`, `invalid value for ${field}: ${d.detail}`, { value, allowed: d.allowed });
}

/**
 * Decodes a create body. Every writable field is optional except those
 * that are not nullable and have no database default; read-only, computed,
 * hidden and unknown fields are refused (`allowed` = the writable fields, in
 * declaration order).
 * @param body the parsed JSON body
 * @returns the values to insert, by column name
 * @throws ProblemError 400 (`invalid-body`) listing every problem: at `body`
 *   when the body is not an object, at `body.<field>` otherwise
 */
export function parseCreateBody(table: TableDescriptor, body: unknown): BodyValues {
  const problems = new ProblemList();
  const out = decodeFields(table, body, "create", problems);
  const carried = body as Record<string, unknown>;
  for (const name of vocabulary(table).required) {
    if (!Object.hasOwn(carried, name))
      problems.add(`body.${name}`, `${name} is required (it is not nullable and has no default)`);
  }
  problems.throwIfAny("invalid-body");
  return out;
}

/**
 * Decodes the body of a bulk create: a JSON array of create bodies, each
 * decoded as {@link parseCreateBody} does, at most `maxRows` of them
 * (docs/decisions/1330-bulk-create.md). Every problem of every element is
 * reported at once, located in its element (`body[3].title`).
 * @throws ProblemError 400 (`invalid-body`): an empty array, more than
 *   `maxRows` elements, or the elements' problems
 */
export function parseCreateRows(table: TableDescriptor, body: readonly unknown[], maxRows: number): BodyValues[] {
  if (body.length === 0)
    throw badRequest("invalid-body", [{ location: "body", detail: "the array holds no row to create" }]);
  if (body.length > maxRows)
    throw badRequest("invalid-body", [
      { location: "body", detail: `${body.length} rows in one request; at most ${maxRows} (max_batch)` },
    ]);
  const rows: BodyValues[] = [];
  const items: ProblemItem[] = [];
  body.forEach((element, i) => {
    try {
      rows.push(parseCreateBody(table, element));
    } catch (e) {
      if (!(e instanceof ProblemError)) throw e;
      for (const item of e.errors) items.push({ ...item, location: elementLocation(item.location, i) });
    }
  });
  if (items.length > 0) throw badRequest("invalid-body", items);
  return rows;
}

/** `body.title` of element `i` as `body[i].title`; `body` as `body[i]`. */
export function elementLocation(location: string, i: number): string {
  return location === "body" || location.startsWith("body.") ? `body[${i}]${location.slice(4)}` : location;
}

/**
 * Decodes an update body: every writable field is optional; read-only,
 * immutable, computed, hidden and unknown fields are refused (`allowed` =
 * the fields an update may carry). The result holds exactly the fields the
 * request carried, so the update sets nothing else (spec: Generated
 * operations rule 6).
 * @throws ProblemError 400 (`invalid-body`) listing every problem; an
 *   empty object is an empty change set, refused at `body`
 */
export function parseUpdateBody(table: TableDescriptor, body: unknown): UpdateBody {
  const problems = new ProblemList();
  const fields = decodeFields(table, body, "update", problems);
  if (Object.keys(body as object).length === 0) {
    problems.add("body", "empty change set: the body carries no field to update", {
      allowed: vocabulary(table).updateWritable,
    });
  }
  problems.throwIfAny("invalid-body");
  return { fields };
}

/**
 * Decodes the input of a declared action (docs/decisions/1334-declared-actions.md)
 * as a create body is decoded: each field by its declared type and bounds;
 * an unknown field, a wrongly typed value or a missing non-nullable field is
 * refused, `allowed` listing the declared fields. An omitted nullable field
 * is given as null, so the implementation sees every declared field. An
 * action without required fields may be sent with no body (`undefined`).
 * @throws ProblemError 400 (`invalid-body`) listing every problem
 */
export function parseActionInput(fields: readonly ColumnDescriptor[], body: unknown): BodyValues {
  if (body === undefined) body = {};
  if (!isObject(body)) {
    throw badRequest("invalid-body", [{ location: "body", detail: "the body must be a JSON object" }]);
  }
  const problems = new ProblemList();
  const allowed = fields.map((f) => f.name);
  const out: BodyValues = {};
  for (const [name, value] of Object.entries(body)) {
    const field = fields.find((f) => f.name === name);
    if (!field) {
      problems.add(`body.${name}`, `unknown field ${name}`, { allowed });
      continue;
    }
    decodeInto(out, field, name, value, problems);
  }
  for (const field of fields) {
    if (Object.hasOwn(body, field.name)) continue;
    if (field.nullable) out[field.name] = null;
    else problems.add(`body.${field.name}`, `${field.name} is required`);
  }
  problems.throwIfAny("invalid-body");
  return out;
}
