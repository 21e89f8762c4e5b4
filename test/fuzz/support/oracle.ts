/**
 * The properties every answer of the service must have, whatever was sent
 * (docs/http.md "Problem documents"; spec: guarantees 1-2,
 * Errors, Limits):
 *
 * - never a 5xx (faults are the business of `test/faults/`);
 * - every 4xx is an RFC 9457 problem document of the documented shape,
 *   its `status` equal to the HTTP status;
 * - no SQL text, driver message, constraint or index name, hidden column
 *   name or hidden column value in any answer, unless the request itself
 *   carried that text (a refusal may quote what the client sent);
 * - a list page never holds more rows than its `per_page`, which never
 *   exceeds the resource's MaxPageSize.
 */
import type { RawAnswer, RawRequest } from "./http.js";

/** What must never leak, gathered from the schema and the loaded database. */
export interface Secrets {
  /** Names of constraints and indexes in the database. */
  constraintNames: string[];
  /** Names of hidden columns. */
  hiddenNames: string[];
  /** Stored values of hidden columns (text forms), long enough not to occur by chance. */
  hiddenValues: string[];
}

/**
 * Spellings that only SQL text or a PostgreSQL / driver message would
 * produce. Matched case-sensitively against the strings of the answer, as
 * the SQL compiler writes keywords in capitals and PostgreSQL writes its
 * messages in lower case.
 */
const SQL_MARKERS: readonly RegExp[] = [
  /\bSELECT\s/,
  /\bFROM\s+"/,
  /\bWHERE\s/,
  /\bORDER BY\b/,
  /\bLIMIT\s+\$?\d/,
  /\bAS\s+"/,
  /\$\d+\b/,
  /::(?:text|json|jsonb|int|integer|bigint|numeric|date|timestamptz|boolean|regclass)\b/,
  /\b(?:row_to_json|json_agg|jsonb_build_object|json_build_object|row_number)\b/,
  /syntax error at or near/,
  /invalid input syntax for/,
  /\bviolates\b/,
  /duplicate key value/,
  /null value in column/,
  /value too long for type/,
  /out of range for type/,
  /canceling statement/,
  /current transaction is aborted/,
  /\brelation "/,
  /\bconstraint "/,
  /invalid byte sequence/,
  /\bSQLSTATE\b/,
  /\bECONN[A-Z]+\b/,
  /\bat character \d/,
  /\n\s+at [\w.<]+ \(/,
];

const PROBLEM_KEYS = new Set(["type", "title", "status", "detail", "errors"]);
const ITEM_KEYS = new Set(["location", "detail", "value", "allowed"]);
// `body[3].title`: an element of a bulk create (docs/decisions/1330-bulk-create.md); `header.if-match`: decision 1329.
const LOCATION = /^(?:query\..*|header\.(?:content-type|if-match)|body(?:\[\d+\])?(?:\..*)?|path\.id)$/s;

/** Every string of a JSON value, object keys included, joined by newlines. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      strings(x, out);
    }
  }
  return out;
}

function tryDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

/**
 * Everything the request said, in every form the service could quote it
 * back: the raw path, its percent-decoding, the query parameters as the
 * server parses them, and the body (raw and as JSON strings).
 */
export function requestText(req: RawRequest): string {
  const parts = [req.path, tryDecode(req.path)];
  try {
    const url = new URL(req.path, "http://fuzz.invalid");
    parts.push(decodeURIComponent(url.pathname));
    for (const [k, v] of url.searchParams) parts.push(k, v);
  } catch {
    // A path the URL parser refuses is quoted in no other form.
  }
  if (req.body !== undefined) {
    parts.push(req.body);
    try {
      strings(JSON.parse(req.body), parts);
    } catch {
      // Not JSON: the raw text above is all there is.
    }
  }
  return parts.join("\n");
}

function checkProblem(ans: RawAnswer, out: string[]): void {
  const ct = ans.headers.get("content-type") ?? "";
  if (!ct.startsWith("application/problem+json"))
    out.push(`content-type ${JSON.stringify(ct)} is not application/problem+json`);
  const doc = ans.json as Record<string, unknown> | undefined;
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
    out.push("the body is not a JSON object");
    return;
  }
  for (const k of Object.keys(doc)) if (!PROBLEM_KEYS.has(k)) out.push(`unexpected member ${k}`);
  if (typeof doc.type !== "string" || !doc.type.startsWith("/problems/")) out.push("type is not a /problems/ URI");
  if (typeof doc.title !== "string" || doc.title === "") out.push("title is missing");
  if (doc.status !== ans.status) out.push(`status member ${String(doc.status)} differs from HTTP ${ans.status}`);
  if (typeof doc.detail !== "string" || doc.detail === "") out.push("detail is missing");
  if (!Array.isArray(doc.errors)) {
    out.push("errors is not an array");
    return;
  }
  for (const item of doc.errors as unknown[]) {
    if (!item || typeof item !== "object" || Array.isArray(item)) {
      out.push("an error item is not an object");
      continue;
    }
    const it = item as Record<string, unknown>;
    for (const k of Object.keys(it)) if (!ITEM_KEYS.has(k)) out.push(`error item has unexpected member ${k}`);
    if (typeof it.location !== "string" || !LOCATION.test(it.location))
      out.push(
        `error item location ${JSON.stringify(it.location)} is not query.*, header.content-type, header.if-match, body[.*], body[n][.*] or path.id`,
      );
    if (typeof it.detail !== "string" || it.detail === "") out.push("error item has no detail");
    if (it.value !== undefined && typeof it.value !== "string") out.push("error item value is not a string");
    if (it.allowed !== undefined && (!Array.isArray(it.allowed) || it.allowed.some((a) => typeof a !== "string")))
      out.push("error item allowed is not a list of strings");
  }
}

/** Object keys anywhere in `v` that name a hidden column. */
function hiddenKeys(v: unknown, hidden: ReadonlySet<string>, out: string[]): void {
  if (Array.isArray(v)) for (const x of v) hiddenKeys(x, hidden, out);
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (hidden.has(k)) out.push(k);
      hiddenKeys(x, hidden, out);
    }
  }
}

/** Limits a list answer is checked against. */
export interface PageLimits {
  maxPageSize: number;
}

/** Options of {@link violations}. */
export interface CheckOptions {
  /**
   * Whether successful answers are searched for SQL text and hidden
   * column names too. Off for write runs, where stored rows hold whatever
   * earlier requests wrote; hidden members and hidden values are checked
   * in every answer regardless.
   */
  scanSuccess: boolean;
  /** Ceilings of the listed resource, when the request was a list. */
  page?: PageLimits;
}

/**
 * Every way `ans` breaks the properties above, as readable sentences; an
 * empty list means the answer is acceptable.
 */
export function violations(req: RawRequest, ans: RawAnswer, secrets: Secrets, options: CheckOptions): string[] {
  const out: string[] = [];
  if (ans.status >= 500) out.push(`status ${ans.status}`);
  // A HEAD answer has no body by definition (RFC 9110 §9.3.2); only its headers can be judged.
  if (ans.status >= 400 && req.method.toUpperCase() !== "HEAD") checkProblem(ans, out);
  const asked = requestText(req);
  const askedLower = asked.toLowerCase();
  const said = ans.json !== undefined ? strings(ans.json).join("\n") : ans.text;
  const saidLower = said.toLowerCase();
  if (ans.status >= 400 || options.scanSuccess) {
    for (const name of secrets.hiddenNames) {
      if (saidLower.includes(name) && !askedLower.includes(name)) out.push(`hidden column name ${name} in the answer`);
    }
    for (const m of SQL_MARKERS) {
      const hit = m.exec(said);
      if (hit && !asked.includes(hit[0])) out.push(`SQL or driver text ${JSON.stringify(hit[0])} in the answer`);
    }
    for (const name of secrets.constraintNames) {
      if (saidLower.includes(name.toLowerCase()) && !askedLower.includes(name.toLowerCase()))
        out.push(`constraint or index name ${name} in the answer`);
    }
  }
  for (const value of secrets.hiddenValues) {
    if (said.includes(value) && !asked.includes(value)) out.push(`a hidden column's value in the answer`);
  }
  const hidden = new Set(secrets.hiddenNames);
  const keys: string[] = [];
  hiddenKeys(ans.status < 400 ? ans.json : undefined, hidden, keys);
  for (const k of keys) out.push(`hidden column ${k} served as a member`);
  if (ans.status >= 400 && ans.json && typeof ans.json === "object") {
    for (const item of ((ans.json as { errors?: unknown }).errors as { allowed?: unknown }[] | undefined) ?? []) {
      if (Array.isArray(item?.allowed) && item.allowed.some((a) => hidden.has(a as string)))
        out.push("a hidden column listed in allowed");
    }
  }
  if (ans.status === 200 && options.page) checkPage(ans.json, options.page, out);
  return out;
}

/** A list page: the documented members, and never more rows than the ceiling allows. */
function checkPage(body: unknown, limits: PageLimits, out: string[]): void {
  const b = body as { items?: unknown; per_page?: unknown; has_more?: unknown } | undefined;
  if (!b || !Array.isArray(b.items)) {
    out.push("a list answer without items");
    return;
  }
  if (typeof b.per_page !== "number" || !Number.isInteger(b.per_page) || b.per_page < 1)
    out.push(`per_page ${String(b.per_page)} is not a positive integer`);
  else {
    if (b.per_page > limits.maxPageSize) out.push(`per_page ${b.per_page} exceeds MaxPageSize ${limits.maxPageSize}`);
    if (b.items.length > b.per_page) out.push(`${b.items.length} items on a page of ${b.per_page}`);
  }
  if (typeof b.has_more !== "boolean") out.push("has_more is not a boolean");
}
