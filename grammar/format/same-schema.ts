/**
 * Schema equality up to source positions: what "the formatter preserves
 * meaning" means (docs/decisions/1100-formatter-layout.md). Spans move when text is re-laid out; every
 * other field of the IR (language/ir.ts) must be equal.
 */
import type { Schema } from "../../language/ir.js";

const POSITION_KEYS = new Set([
  "span",
  "nameSpan",
  "keySpan",
  "opSpan",
  "pathSpan",
  "columnSpan",
  "claimSpan",
  "roleSpans",
  "opSpans",
  "hideSpans",
]);

/**
 * A copy of an IR value without source positions: `span`, `nameSpan`,
 * `keySpan` and the other span fields of `POSITION_KEYS` (those of access
 * rules, docs/decisions/1367-access-rules.md) are dropped, `settingSpans`
 * keeps only its keys (which settings were written); object keys are
 * sorted, so the JSON of two equal values is the same string.
 */
export function withoutSpans(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSpans);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    if (POSITION_KEYS.has(k)) continue;
    out[k] = k === "settingSpans" && v !== null && typeof v === "object" ? Object.keys(v).sort() : withoutSpans(v);
  }
  return out;
}

/** True when two schemas are equal once spans are set aside. */
export function sameSchema(a: Schema, b: Schema): boolean {
  return JSON.stringify(withoutSpans(a)) === JSON.stringify(withoutSpans(b));
}
