/**
 * One leaf condition of a filter, `column op value`, checked against the
 * descriptor and decoded into a {@link Comparison}. The URL parameters, the
 * group children and the `?filter=` JSON tree all end here, so a condition
 * means the same however it was written and they share one MaxFilters
 * budget (spec: Query grammar, Operators by column type, Limits).
 */
import { MAX_LIST_VALUES, MAX_VALUE_BYTES, type ColumnDescriptor } from "../descriptor.js";
import { cmp, type Comparison, type JsonValue, type ScalarValue } from "../predicate.js";
import { decodeJsonScalar, decodeText, isJsonValue, NOT_A_DOCUMENT, textFault, type Decoded } from "./codecs.js";
import {
  isOperatorName,
  minListItems,
  canonicalOperator,
  operatorsFor,
  valueShape,
  type OperatorName,
} from "./operators.js";
import type { ProblemExtras, ProblemList } from "./problems.js";
import { readList, readScalar } from "./syntax.js";
import type { TableVocabulary } from "./vocabulary.js";
import { longerThanValueLimit } from "./value-bytes.js";

/** State shared by every filter of one request. */
export interface FilterContext {
  readonly vocab: TableVocabulary;
  readonly problems: ProblemList;
  /** The resource's MaxFilters ceiling. */
  readonly maxFilters: number;
  /** Leaf conditions met so far in the URL filters, groups and tree together. */
  leaves: number;
  /** Set once the MaxFilters refusal is recorded, so it is recorded once. */
  overLimitReported: boolean;
}

/** Where a leaf was written, for its problems. */
export interface LeafSite {
  /** `query.<param>` of the parameter holding the leaf. */
  location: string;
  /** Prefix of every detail, naming the leaf inside a group or tree (empty for a column parameter). */
  prefix: string;
  /** True for a `?<column>=` parameter: an unknown name is then an unknown parameter. */
  parameter: boolean;
}

/**
 * A leaf's value as written: URL text (absent when the leaf has no value
 * part; `bare` for the `?col=v` shorthand), or a member of a JSON tree
 * (`present` false when the node has no `value`).
 */
export type LeafValue =
  { from: "url"; text: string | undefined; bare?: boolean } | { from: "json"; present: boolean; value: unknown };

/** Records the MaxFilters refusal the first time the count goes over (spec: Limits). */
function countLeaf(ctx: FilterContext, site: LeafSite): void {
  ctx.leaves++;
  if (ctx.leaves > ctx.maxFilters && !ctx.overLimitReported) {
    ctx.overLimitReported = true;
    ctx.problems.add(
      site.location,
      `too many filter conditions: at most ${ctx.maxFilters} per request, counting every condition in the URL, its groups and the filter tree`,
    );
  }
}

/** Decodes one URL or JSON item for the column's (element) type. */
function decodeItem(col: ColumnDescriptor, raw: unknown, textOnly: boolean): Decoded<ScalarValue> {
  if (typeof raw === "string") {
    if (longerThanValueLimit(raw)) return { ok: false, detail: `longer than ${MAX_VALUE_BYTES} UTF-8 bytes` };
    if (textOnly) {
      const fault = textFault(raw);
      return fault === undefined ? { ok: true, value: raw } : { ok: false, detail: fault };
    }
    return decodeText(col, raw);
  }
  if (raw === null || raw === undefined) return { ok: false, detail: "a value is required" };
  if (textOnly) return { ok: false, detail: "expected a JSON string" };
  return decodeJsonScalar(col, raw);
}

/** Reads a JSON document value: URL text parsed as JSON, or a tree member taken as is. */
function decodeDocument(value: LeafValue): Decoded<JsonValue> {
  if (value.from === "url") {
    const text = value.text ?? "";
    if (longerThanValueLimit(text)) return { ok: false, detail: `longer than ${MAX_VALUE_BYTES} UTF-8 bytes` };
    try {
      return { ok: true, value: JSON.parse(text) as JsonValue };
    } catch {
      return { ok: false, detail: 'expected a JSON document, e.g. {"key":"value"}' };
    }
  }
  if (!value.present) return { ok: false, detail: "a JSON value is required" };
  if (!isJsonValue(value.value)) return { ok: false, detail: NOT_A_DOCUMENT };
  if (longerThanValueLimit(JSON.stringify(value.value)))
    return { ok: false, detail: `longer than ${MAX_VALUE_BYTES} UTF-8 bytes` };
  return { ok: true, value: value.value };
}

/** The raw items of a list value, or the syntax problem. */
function listItems(value: LeafValue): Decoded<unknown[]> {
  if (value.from === "url") {
    if (value.text === undefined) return { ok: false, detail: "a list value is required (column.operator.(a,b))" };
    const l = readList(value.text);
    return l.ok ? l : { ok: false, detail: l.detail };
  }
  return Array.isArray(value.value) ? { ok: true, value: value.value } : { ok: false, detail: "expected a JSON array" };
}

/** The raw single value, or the syntax problem. */
function singleItem(value: LeafValue): Decoded<unknown> {
  if (value.from === "url") {
    if (value.text === undefined) return { ok: false, detail: "a value is required (column.operator.value)" };
    const s = readScalar(value.text);
    return s.ok ? s : { ok: false, detail: s.detail };
  }
  return value.present ? { ok: true, value: value.value } : { ok: false, detail: "a value is required" };
}

/** The refusal of a LIKE pattern PostgreSQL would refuse only when the statement runs. */
const LONE_ESCAPE = "a like pattern may not end with its escape character \\ (write \\\\ for a backslash)";

/** True when `pattern` ends in a backslash that escapes nothing: an odd run of them. */
function endsInEscape(pattern: string): boolean {
  let run = 0;
  while (run < pattern.length && pattern[pattern.length - 1 - run] === "\\") run++;
  return run % 2 === 1;
}

type Report = (detail: string, extras?: ProblemExtras) => undefined;

/** The column and operator of a leaf once both are known to be allowed; refusals go to `report`. */
function resolve(
  vocab: TableVocabulary,
  site: LeafSite,
  field: string,
  opName: string,
  value: LeafValue,
  report: Report,
): { col: ColumnDescriptor; opName: OperatorName } | undefined {
  const col = vocab.visible.get(field);
  if (!col || !col.filterable) {
    // A hidden column reads exactly like an unknown one, so a refusal never reveals it.
    let what = `unknown column ${field}`;
    if (col) what = `column ${field} is not filterable`;
    else if (site.parameter) what = `unknown parameter ${field}: not a filterable column nor a query parameter`;
    // No `value` echo: the location names the column, and a hidden name is never quoted back.
    return report(what, { allowed: vocab.filterable });
  }
  const allowed = operatorsFor(col);
  if (value.from === "url" && value.bare && col.kind === "jsonb" && !col.array) {
    return report(`a bare value is refused on document column ${field}; write hasdoc.<JSON document>`, { allowed });
  }
  if (!isOperatorName(opName)) {
    return report(`unknown operator ${opName} for column ${field}`, { value: opName, allowed });
  }
  if (!allowed.includes(opName)) {
    const type = `${col.sqlType}${col.nullable ? ", nullable" : ""}`;
    return report(`operator ${opName} is not valid for column ${field} (${type})`, { value: opName, allowed });
  }
  return { col, opName };
}

/** How a value that does not decode is reported: its detail sentence and extras, given the codec's refusal and the value. */
type Refusal = (d: { detail: string; allowed?: readonly string[] }, v: unknown) => [string, ProblemExtras];

/** The text before the first dot of a bare value, when it reads as a word (`approx` in `approx.available`). */
const OPERATOR_LIKE = /^([A-Za-z][A-Za-z0-9_]*)\./;

/**
 * The refusal of a bare value that does not decode and starts like an
 * operator (`?status=approx.available`): the grammar read it as a value
 * because `approx` is no operator (docs/decisions/0300-filter-syntax.md),
 * but the caller most likely meant one, so the problem names the unknown
 * operator and lists the column's operators as `allowed`, and says why the
 * text is no value either. Undefined for any other leaf.
 */
function unknownOperatorRefusal(col: ColumnDescriptor, value: LeafValue): Refusal | undefined {
  if (value.from !== "url" || !value.bare || value.text === undefined) return undefined;
  const word = OPERATOR_LIKE.exec(value.text)?.[1];
  if (word === undefined) return undefined;
  const text = value.text;
  return (d) => [
    `unknown operator ${word} for column ${col.name}; read as a bare value, ${text} is not valid either: ${d.detail}`,
    { value: word, allowed: operatorsFor(col) },
  ];
}

/**
 * Decodes the value of an allowed leaf for its operator's shape, reporting
 * every bad item of a list.
 * @returns `ok` with the comparison value (undefined for the null tests), or not ok after reporting
 */
function decodeLeafValue(
  col: ColumnDescriptor,
  opName: OperatorName,
  value: LeafValue,
  report: Report,
): { ok: true; value: Comparison["value"] } | { ok: false } {
  const op = canonicalOperator(opName);
  const shape = valueShape(col, op);
  const raw = value.from === "url" ? value.text : value.value;
  const refusal: Refusal =
    unknownOperatorRefusal(col, value) ??
    ((d, v) => [`invalid value for column ${col.name}: ${d.detail}`, { value: v, allowed: d.allowed }]);
  const bad = (d: { detail: string; allowed?: readonly string[] }, v: unknown): { ok: false } => {
    report(...refusal(d, v));
    return { ok: false };
  };
  switch (shape) {
    case "none": {
      const given = value.from === "url" ? value.text !== undefined : value.present && value.value !== null;
      if (given) report(`operator ${opName} takes no value`);
      return given ? { ok: false } : { ok: true, value: undefined };
    }
    case "document": {
      const d = decodeDocument(value);
      return d.ok ? d : bad(d, raw);
    }
    case "list":
    case "pair": {
      const l = listItems(value);
      if (!l.ok) return bad(l, raw);
      const [min, max] = shape === "pair" ? [2, 2] : [minListItems(col, op), MAX_LIST_VALUES];
      if (l.value.length < min || l.value.length > max) {
        const want = shape === "pair" ? "exactly 2 values (low,high)" : `${min} to ${max} values`;
        report(`operator ${opName} on column ${col.name} takes ${want}; ${l.value.length} given`);
        return { ok: false };
      }
      const out: ScalarValue[] = [];
      let failed = false;
      for (const item of l.value) {
        const d = decodeItem(col, item, false);
        if (d.ok) {
          out.push(d.value);
        } else {
          bad(d, item);
          failed = true;
        }
      }
      return failed ? { ok: false } : { ok: true, value: out };
    }
    default: {
      const single = singleItem(value);
      if (!single.ok) return bad(single, raw);
      const d = decodeItem(col, single.value, shape === "text");
      if (d.ok && (op === "like" || op === "ilike") && endsInEscape(String(d.value)))
        return bad({ detail: LONE_ESCAPE }, single.value);
      return d.ok ? d : bad(d, single.value);
    }
  }
}

/**
 * Checks and decodes one leaf, recording every problem in `ctx.problems`
 * at `site.location`. Every leaf counts toward MaxFilters, valid or not.
 * @param field the column name as written
 * @param opName the operator as written (`neq` is normalised to `ne`)
 * @returns the comparison, or undefined when a problem was recorded
 */
export function buildLeaf(
  ctx: FilterContext,
  site: LeafSite,
  field: string,
  opName: string,
  value: LeafValue,
): Comparison | undefined {
  countLeaf(ctx, site);
  const report: Report = (detail, extras = {}) => {
    ctx.problems.add(site.location, site.prefix + detail, extras);
    return undefined;
  };
  const resolved = resolve(ctx.vocab, site, field, opName, value, report);
  if (!resolved) return undefined;
  const decoded = decodeLeafValue(resolved.col, resolved.opName, value, report);
  return decoded.ok ? cmp(field, canonicalOperator(resolved.opName), decoded.value) : undefined;
}
