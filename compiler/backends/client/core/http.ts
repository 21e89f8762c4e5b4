/**
 * The HTTP core of a resc typed client: one request at a time, problem
 * documents, the URL serialization of filters and cursor paging. It uses
 * only what Node 20 and browsers provide (`fetch`, `URL`,
 * `URLSearchParams`, `AbortSignal`) and imports nothing: the operator
 * vocabulary is resc's own, copied into this file when it is generated.
 */
import {
  OPERATOR_ALIASES,
  OPERATOR_FAMILIES,
  OPERATOR_VALUES,
  isOperatorName,
  operatorValue,
  writeListItem,
  writeScalarValue,
  type OperatorFamily,
  type OperatorName,
  type ValueShape,
} from "../../../../runtime/operators.js";
export type {
  Operator,
  OperatorName,
  ValueShape,
} from "../../../../runtime/operators.js";

/** The base address used when neither the client value nor the environment names one. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:3000";

/** The methods the generated operations use. */
export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/**
 * Query parameters as `[name, value]` pairs, in order; a name may repeat
 * (repeated filters conjoin). Values are plain text; the client encodes them.
 *
 * @example
 * ```ts
 * await client.do({
 *   method: "GET",
 *   path: "/tasks",
 *   query: [["status", "eq.todo"], ["priority", "gte.2"], ["sort", "-created_at"]],
 * });
 * ```
 */
export type QueryPairs = ReadonlyArray<readonly [name: string, value: string]>;

/** One request, before the client adds its base address and credential. */
export interface ApiRequest {
  method: HttpMethod;
  /** The path below the base address, starting with `/`, each segment already percent-encoded. */
  path: string;
  query?: QueryPairs;
  /** The JSON body, serialized with `JSON.stringify`; absent for GET and DELETE. */
  body?: unknown;
  /** Further request headers, such as an upsert's `Prefer`. */
  headers?: Readonly<Record<string, string>> | undefined;
}

/** A request as it goes on the wire: what a {@link Transport} receives. */
export interface PreparedRequest {
  method: HttpMethod;
  /** The absolute URL, query string included. */
  url: string;
  /** `accept`, `content-type` with a body, and `authorization: Bearer …` when the client has a token. */
  headers: Record<string, string>;
  /** The JSON text of the body, if any. */
  body?: string;
}

/** A response as received: its status and its body text (JSON, or `""` when there is none, as on a 204). */
export interface RawResponse {
  status: number;
  body: string;
  /** The `ETag` header, when the service sent one: the version of the row the body shows. */
  etag?: string | undefined;
}

/**
 * Replaces the built-in HTTP implementation entirely (tests without
 * sockets, request signing). It resolves with the status and body of any
 * response, error statuses included, and rejects only when no response
 * was obtained; `signal` aborts the request.
 */
export type Transport = (
  request: PreparedRequest,
  signal: AbortSignal,
) => Promise<RawResponse>;

/**
 * Gives the bearer token of one request (docs/clients.md, "Credentials";
 * docs/decisions/1367-access-rules.md): called before every request, each
 * reconnect of a feed included, and awaited, so it may refresh a token that
 * is about to expire. `undefined` or `""` sends no `Authorization` header;
 * a rejection rejects the request (or ends the feed) with that error,
 * nothing being sent.
 */
export type TokenProvider = () =>
  string | undefined | Promise<string | undefined>;

/** What a client value is built from; every field is optional. */
export interface ClientOptions {
  /** The service's base address, e.g. `https://tracker.example.com/api`; default {@link DEFAULT_BASE_URL}. */
  baseURL?: string | undefined;
  /**
   * Bearer token, sent only as `Authorization: Bearer <token>`: a fixed
   * token, or a {@link TokenProvider} asked before every request.
   */
  token?: string | TokenProvider | undefined;
  transport?: Transport | undefined;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the request; the call then rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /**
   * Sent as `If-Match`: an update or delete writes only while the row is
   * still at this version (a tag {@link etagOf} gave), and otherwise
   * rejects with a {@link ProblemError} 412 having written nothing.
   */
  ifMatch?: string | undefined;
  /**
   * Sent as `Idempotency-Key` on a POST (a create, an upsert, an action):
   * a retry with the same key and the same request gets the first answer
   * and writes nothing again (docs/decisions/1335-idempotency-keys.md). Use
   * a new random key (`crypto.randomUUID()`) per operation, the same one for
   * its retries.
   */
  idempotencyKey?: string | undefined;
}

/** One problem of a refused request (docs/http.md, Problem documents). */
export interface ProblemItem {
  /** `query.<param>`, `body`, `body.<field>` or `path.id`. */
  location: string;
  detail: string;
  value?: string;
  /** The valid alternatives, when the service names them. */
  allowed?: string[];
}

/** The body of every refusal: an RFC 9457 problem document. */
export interface ProblemDocument {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  errors?: ProblemItem[];
}

/** A response with a non-2xx status, carrying its problem document. */
export class ProblemError extends Error {
  readonly status: number;
  readonly problem: ProblemDocument;

  constructor(problem: ProblemDocument) {
    super(problem.detail ?? problem.title ?? "HTTP " + problem.status);
    this.name = "ProblemError";
    this.status = problem.status;
    this.problem = problem;
  }
}

/** No response was obtained: the service is unreachable or the connection failed. */
export class TransportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TransportError";
  }
}

/**
 * The `allowed` alternatives a refusal names at `location` (for example
 * `query.sort`), merged over its problems in order; undefined when none does.
 */
export function allowedAt(
  problem: ProblemDocument | ProblemError,
  location: string,
): string[] | undefined {
  const doc = problem instanceof ProblemError ? problem.problem : problem;
  let out: string[] | undefined;
  for (const item of doc.errors ?? []) {
    if (item.location !== location || !Array.isArray(item.allowed)) continue;
    out = out ?? [];
    for (const a of item.allowed) if (!out.includes(a)) out.push(a);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The problem document of an error response; one is made up when the body is not one (a proxy's page). */
function problemOf(status: number, body: string): ProblemDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (
    isRecord(parsed) &&
    (typeof parsed["detail"] === "string" ||
      typeof parsed["title"] === "string")
  ) {
    return {
      ...(parsed as Partial<ProblemDocument>),
      status,
    } as ProblemDocument;
  }
  return {
    status,
    title: "HTTP " + status,
    detail:
      "the service answered HTTP " + status + " without a problem document",
  };
}

function describeFailure(e: unknown): string {
  const cause = isRecord(e) ? e["cause"] : undefined;
  if (isRecord(cause) && typeof cause["code"] === "string")
    return cause["code"];
  if (cause instanceof Error) return cause.message;
  return e instanceof Error ? e.message : String(e);
}

/** The built-in transport: `fetch`. */
export const fetchTransport: Transport = async (request, signal) => {
  let response: Response;
  try {
    const init: RequestInit = {
      method: request.method,
      headers: request.headers,
      signal,
    };
    if (request.body !== undefined) init.body = request.body;
    response = await fetch(request.url, init);
  } catch (e) {
    if (signal.aborted) throw e;
    throw new TransportError(
      "cannot reach " + request.url + ": " + describeFailure(e),
      { cause: e },
    );
  }
  return {
    status: response.status,
    body: await response.text(),
    etag: response.headers.get("etag") ?? undefined,
  };
};

/**
 * Sends requests to one service: base address, credential and transport.
 * The generated `Client` extends it with one member per resource.
 */
export class HttpClient {
  readonly baseURL: string | undefined;
  readonly token: string | TokenProvider | undefined;
  readonly transport: Transport | undefined;

  constructor(options: ClientOptions = {}) {
    this.baseURL = options.baseURL;
    this.token = options.token;
    this.transport = options.transport;
  }

  /**
   * The bearer token of the next request: the fixed token, or what the
   * {@link TokenProvider} answers now (awaited; called once per call).
   */
  async credential(): Promise<string | undefined> {
    return typeof this.token === "function" ? await this.token() : this.token;
  }

  /**
   * The request as it goes on the wire.
   * @param token the bearer token to send; by default the client's own
   *   when it is fixed (a provider's is {@link credential}'s to ask)
   */
  prepare(
    request: ApiRequest,
    token: string | undefined = typeof this.token === "string"
      ? this.token
      : undefined,
  ): PreparedRequest {
    const base = (this.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    const search = new URLSearchParams();
    for (const [name, value] of request.query ?? []) search.append(name, value);
    const qs = search.toString();
    const headers: Record<string, string> = { accept: "application/json" };
    for (const [name, value] of Object.entries(request.headers ?? {}))
      headers[name.toLowerCase()] = value;
    if (token !== undefined && token !== "")
      headers["authorization"] = "Bearer " + token;
    const prepared: PreparedRequest = {
      method: request.method,
      url: base + request.path + (qs ? "?" + qs : ""),
      headers,
    };
    if (request.body !== undefined) {
      headers["content-type"] = "application/json";
      prepared.body = JSON.stringify(request.body);
    }
    return prepared;
  }

  /**
   * Performs one request and gives the whole response. The token is asked
   * for first ({@link credential}).
   * @throws ProblemError on a non-2xx status (a 401 when the service wants
   *   a token or refused this one, a 403 when the caller's role may not do
   *   this); TransportError when no response came; what a {@link TokenProvider} throws
   */
  async send(
    request: ApiRequest,
    options: CallOptions = {},
  ): Promise<RawResponse> {
    const signal = options.signal ?? new AbortController().signal;
    const prepared = this.prepare(request, await this.credential());
    if (options.ifMatch !== undefined)
      prepared.headers["if-match"] = options.ifMatch;
    if (options.idempotencyKey !== undefined)
      prepared.headers["idempotency-key"] = options.idempotencyKey;
    const response = await (this.transport ?? fetchTransport)(prepared, signal);
    if (response.status < 200 || response.status > 299)
      throw new ProblemError(problemOf(response.status, response.body));
    return response;
  }

  /**
   * Performs one request.
   * @returns the response body as received: JSON text, or `""` when there is none
   * @throws ProblemError on a non-2xx status; TransportError when no response came
   */
  async do(request: ApiRequest, options: CallOptions = {}): Promise<string> {
    return (await this.send(request, options)).body;
  }
}

/** A JSON value, as documents travel. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The list response shape (spec: List response shape). */
export interface ListPage<T> {
  items: T[];
  page?: number | undefined;
  per_page: number;
  has_more: boolean;
  /** Present when there is a next page: pass it as `cursor` with the same query. */
  next_cursor?: string;
  /** Only with `count: true`: the size of the whole result set. */
  total?: number;
}

/** An expanded inverse relation: the first children and whether more exist. */
export interface Children<T> {
  items: T[];
  has_more: boolean;
}

/** The row a list returns: narrowed by `select` (the key always stays), whole otherwise. */
export type Selected<Row, S, Key extends keyof Row> = S extends readonly []
  ? Row
  : S extends readonly (infer C)[]
    ? Pick<Row, (C & keyof Row) | Key>
    : Row;

/** The members `expand` adds, under each relation's name. */
export type Expanded<X, E> = E extends readonly (infer R)[]
  ? { [K in R & keyof X]: X[K] }
  : unknown;

/** The operand of an operator whose value has shape `S`, on a column whose values are `T`. */
type Operand<S extends ValueShape, T> = S extends "none"
  ? true
  : S extends "list"
    ? readonly T[]
    : S extends "pair"
      ? readonly [T, T]
      : S extends "text"
        ? string
        : S extends "document"
          ? JsonValue
          : T;

/** The operator an input spelling stands for (`neq` is `ne`). */
type Canonical<O extends OperatorName> = O extends keyof typeof OPERATOR_ALIASES
  ? (typeof OPERATOR_ALIASES)[O]
  : O;

/** The shape of `O`'s value; on an array column (`A`) `eq` and `ne` compare whole arrays. */
type ShapeOf<O extends OperatorName, A extends boolean> = A extends true
  ? Canonical<O> extends "eq" | "ne"
    ? "list"
    : (typeof OPERATOR_VALUES)[Canonical<O>]
  : (typeof OPERATOR_VALUES)[Canonical<O>];

/** The operators of a family of the vocabulary as the optional members of a filter object. */
type FamilyOps<F extends OperatorFamily, T, A extends boolean = false> = {
  [O in (typeof OPERATOR_FAMILIES)[F][number]]?: Operand<ShapeOf<O, A>, T>;
};

/** Operators of every scalar type: equality and membership. */
export interface EqualityOps<T> extends FamilyOps<"equality", T> {}

/** Operators of ordered types: equality, order and ranges (`between`: low and high, both included). */
export interface OrderOps<T> extends FamilyOps<"ordered", T> {}

/** Pattern and substring operators of text (and enum) columns; `contains`, `startswith`, `endswith` match literally, ignoring case. */
export interface TextOps extends FamilyOps<"text", string> {}

/** Null tests, on nullable columns only. */
export interface NullOps extends FamilyOps<"null", never> {}

/** The containment vocabulary of array columns; `eq`/`ne` compare whole arrays. */
export interface ArrayOps<T> extends FamilyOps<"array", T, true> {}

/** The document-containment vocabulary of jsonb columns. */
export interface DocumentOps extends FamilyOps<"document", JsonValue> {}

/** A filter on an equality-only column: a value (equality) or operators. */
export type EqualityFilter<T> = T | EqualityOps<T>;
/** A filter on an ordered column: a value (equality) or operators. */
export type OrderFilter<T> = T | OrderOps<T>;
/** A filter on a text or enum column: a value (equality) or operators. */
export type TextFilter<T extends string> = T | (OrderOps<T> & TextOps);
/** A filter on an array column: a whole array (equality) or operators. */
export type ArrayFilter<T> = readonly T[] | ArrayOps<T>;
/** A filter on a document column: operators only (a bare document is refused by the service). */
export type DocumentFilter = DocumentOps;
/** Adds the null tests to a filter of a nullable column. */
export type Nullable<F> = F | NullOps;

/** Paging and counting of a list request. */
export interface PageParams {
  /** 1-based page number (offset paging). */
  page?: number | undefined;
  /** Rows per page; the service caps it at the resource's maximum. */
  perPage?: number | undefined;
  /** Rows to skip (offset paging). */
  offset?: number | undefined;
  /** A `next_cursor` from a previous page of the same query (keyset paging). */
  cursor?: string | undefined;
  /** Adds `total`, the size of the whole result set. */
  count?: boolean | undefined;
}

/** A list query as the serializer sees it, before typing. */
export interface ListParams extends PageParams {
  where?: object | undefined;
  sort?: readonly string[] | undefined;
  select?: readonly string[] | undefined;
  expand?: readonly string[] | undefined;
  search?: string | undefined;
}

/**
 * How a filterable column's values are written in a URL: `date` and
 * `instant` (timestamptz) also accept a `Date`, `document` is JSON, `[]`
 * marks an array column (`document[]`: each element is JSON, a string
 * element too). Columns not listed are `plain`.
 */
export type ColumnCodec =
  | "plain"
  | "date"
  | "instant"
  | "document"
  | "plain[]"
  | "date[]"
  | "instant[]"
  | "document[]";

/** Codecs of a resource's filterable columns, and of the columns its bodies take a `Date` for, that are not `plain`. */
export type ColumnCodecs = Readonly<Record<string, ColumnCodec>>;

/**
 * A `Date` in the wire form of a column of codec `codec` (docs/http.md, JSON
 * forms of column types): its instant (`toISOString()`) for `instant`, its
 * calendar day in UTC (`YYYY-MM-DD`) for `date`; undefined for any other
 * codec. `what` starts the message of the TypeError an invalid Date throws.
 */
function dateText(
  value: Date,
  codec: ColumnCodec,
  what: string,
): string | undefined {
  if (Number.isNaN(value.getTime()))
    throw new TypeError(what + ": invalid Date");
  const base = codec.replace("[]", "");
  if (base === "instant") return value.toISOString();
  if (base === "date") return value.toISOString().slice(0, 10);
  return undefined;
}

function scalarText(
  value: unknown,
  codec: ColumnCodec,
  column: string,
): string {
  // The service reads each element of a jsonb array's filter as JSON, so a string element needs its quotes.
  if (codec === "document[]") {
    const text = JSON.stringify(value);
    if (text === undefined)
      throw new TypeError("filter on " + column + ": expected a JSON document");
    return text;
  }
  if (value instanceof Date) {
    const text = dateText(value, codec, "filter on " + column);
    if (text !== undefined) return text;
    throw new TypeError(
      "filter on " +
        column +
        ": a Date is accepted on date and timestamptz columns only",
    );
  }
  switch (typeof value) {
    case "string":
      return value;
    case "number":
      if (!Number.isFinite(value))
        throw new TypeError(
          "filter on " + column + ": " + value + " is not a finite number",
        );
      return String(value);
    case "bigint":
    case "boolean":
      return String(value);
    default:
      throw new TypeError(
        "filter on " +
          column +
          ": cannot write a " +
          typeof value +
          " as a value",
      );
  }
}

function bodyValue(
  value: unknown,
  codec: ColumnCodec,
  column: string,
): unknown {
  if (value instanceof Date)
    return dateText(value, codec, "body." + column) ?? value;
  if (Array.isArray(value) && codec.endsWith("[]"))
    return value.map((v) => bodyValue(v, codec, column));
  return value;
}

/**
 * A create, update or upsert body (one row, or an array of rows) as it goes
 * on the wire: a `Date` given for a `date` column is written as its
 * calendar day in UTC (`YYYY-MM-DD`), for a `timestamptz` column as its
 * instant (`toISOString()`), elements of array columns alike, as a filter
 * writes them (docs/http.md, JSON forms of column types); every other value
 * is left as given. The body given is not changed.
 * @throws TypeError for an invalid Date, naming the field
 */
export function writeBody(body: unknown, codecs: ColumnCodecs): unknown {
  if (Array.isArray(body)) return body.map((row) => writeBody(row, codecs));
  if (!isRecord(body)) return body;
  let out: Record<string, unknown> | undefined;
  for (const [column, value] of Object.entries(body)) {
    const codec = codecs[column];
    if (codec === undefined) continue;
    const written = bodyValue(value, codec, column);
    if (written !== value) (out ??= { ...body })[column] = written;
  }
  return out ?? body;
}

function scalar(value: unknown, codec: ColumnCodec, column: string): string {
  return writeScalarValue(scalarText(value, codec, column));
}

function list(value: unknown, codec: ColumnCodec, column: string): string {
  if (!Array.isArray(value))
    throw new TypeError(
      "filter on " + column + ": expected an array of values",
    );
  const items = value.map((v) => writeListItem(scalarText(v, codec, column)));
  return "(" + items.join(",") + ")";
}

/** Inside a group only `\"` and `\\` may appear in quotes, so a document with other JSON escapes cannot be written there. */
function document(value: unknown, column: string, inGroup: boolean): string {
  const text = JSON.stringify(value);
  if (text === undefined)
    throw new TypeError("filter on " + column + ": expected a JSON document");
  if (inGroup && /\\[^"\\]/.test(text.replace(/\\\\/g, ""))) {
    throw new TypeError(
      "filter on " +
        column +
        ": a document with escaped characters (newlines, control characters) cannot be written inside or/and/not; filter on it at the top level",
    );
  }
  return text;
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && !(value instanceof Date);
}

/** The `op.value` texts of one column's filter, in the order written. */
function leaves(
  column: string,
  filter: unknown,
  codecs: ColumnCodecs,
  inGroup: boolean,
): string[] {
  const codec = codecs[column] ?? "plain";
  const isArray = codec.endsWith("[]");
  if (codec === "document" && !isOperatorObject(filter)) {
    throw new TypeError(
      "filter on " +
        column +
        ": a document column takes operators ({ hasdoc: … }), not a bare value",
    );
  }
  const entries: [string, unknown][] = isOperatorObject(filter)
    ? Object.entries(filter)
    : [["eq", filter]];
  const out: string[] = [];
  for (const [op, value] of entries) {
    if (value === undefined) continue;
    // An operator the vocabulary does not know is sent as written; the service refuses it with the allowed list.
    const shape = isOperatorName(op) ? operatorValue(op, isArray) : "scalar";
    if (shape === "none") {
      out.push(op);
    } else if (shape === "document") {
      out.push(op + "." + document(value, column, inGroup));
    } else if (shape === "list" || shape === "pair") {
      out.push(op + "." + list(value, codec, column));
    } else {
      out.push(op + "." + scalar(value, codec, column));
    }
  }
  return out;
}

function groupMembers(key: string, value: unknown): object[] {
  if (!Array.isArray(value))
    throw new TypeError(key + ": expected an array of filters");
  return value as object[];
}

/** The children of a conjunction written inside a group: `col.op.value`, `or(…)`, `and(…)`, `not(…)`. */
function terms(where: object, codecs: ColumnCodecs): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (key === "or")
      out.push(
        "or(" +
          groupMembers(key, value)
            .map((w) => conjunction(w, codecs))
            .join(",") +
          ")",
      );
    else if (key === "and")
      for (const w of groupMembers(key, value)) out.push(...terms(w, codecs));
    else if (key === "not")
      out.push(
        "not(" + nonEmpty(terms(value as object, codecs), key).join(",") + ")",
      );
    else
      for (const leaf of leaves(key, value, codecs, true))
        out.push(key + "." + leaf);
  }
  return out;
}

function nonEmpty(children: string[], key: string): string[] {
  if (children.length === 0)
    throw new TypeError(
      key + ": an empty filter has no meaning inside a group",
    );
  return children;
}

function conjunction(where: object, codecs: ColumnCodecs): string {
  const t = nonEmpty(terms(where, codecs), "or");
  return t.length === 1 ? t.join("") : "and(" + t.join(",") + ")";
}

/**
 * Writes a filter object as the URL grammar's parameters
 * (docs/http.md; docs/decisions/0300-filter-syntax.md): a column's
 * operators become repeated `col=op.value` parameters, `or` becomes
 * `or=(…)` whose members are conjunctions, `and` is flattened (everything
 * conjoins), `not` becomes `not=(…)` (NOT of the conjunction).
 * @throws TypeError on a value the grammar cannot carry
 */
export function whereParams(
  where: object,
  codecs: ColumnCodecs,
): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (key === "or")
      out.push([
        "or",
        "(" +
          groupMembers(key, value)
            .map((w) => conjunction(w, codecs))
            .join(",") +
          ")",
      ]);
    else if (key === "and")
      for (const w of groupMembers(key, value))
        out.push(...whereParams(w, codecs));
    else if (key === "not")
      out.push([
        "not",
        "(" + nonEmpty(terms(value as object, codecs), key).join(",") + ")",
      ]);
    else
      for (const leaf of leaves(key, value, codecs, false))
        out.push([key, leaf]);
  }
  return out;
}

function count(name: string, n: number): string {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new TypeError(name + ": expected a non-negative integer");
  return String(n);
}

/** The query parameters of a list request, in a fixed order. */
export function listParams(
  query: ListParams,
  codecs: ColumnCodecs,
): [string, string][] {
  const out = query.where ? whereParams(query.where, codecs) : [];
  if (query.sort && query.sort.length > 0)
    out.push(["sort", query.sort.join(",")]);
  if (query.select && query.select.length > 0)
    out.push(["select", query.select.join(",")]);
  if (query.expand && query.expand.length > 0)
    out.push(["expand", query.expand.join(",")]);
  if (query.search !== undefined && query.search !== "")
    out.push(["search", query.search]);
  if (query.page !== undefined) out.push(["page", count("page", query.page)]);
  if (query.perPage !== undefined)
    out.push(["per_page", count("perPage", query.perPage)]);
  if (query.offset !== undefined)
    out.push(["offset", count("offset", query.offset)]);
  if (query.cursor !== undefined) out.push(["cursor", query.cursor]);
  if (query.count) out.push(["count", "exact"]);
  return out;
}

/** `/<resource>/<id>`, the id percent-encoded. */
export function itemPath(path: string, id: string | number | bigint): string {
  return path + "/" + encodeURIComponent(String(id));
}

/** How an upsert treats a row that conflicts on a key (docs/clients.md, "Many rows"). */
export interface Upsert<Column extends string> {
  /** `merge` overwrites the columns an update may write; `ignore` keeps the stored row. */
  resolution: "merge" | "ignore";
  /** The key rows conflict on: the primary key (the default) or a unique key. */
  onConflict?: readonly Column[] | undefined;
}

/** The `on_conflict` parameter and `Prefer` header of an upsert request. */
export function upsertRequest(
  how: Upsert<string>,
): Pick<ApiRequest, "query" | "headers"> {
  const query: [string, string][] =
    how.onConflict && how.onConflict.length > 0
      ? [["on_conflict", how.onConflict.join(",")]]
      : [];
  const resolution =
    how.resolution === "merge" ? "merge-duplicates" : "ignore-duplicates";
  return { query, headers: { prefer: "resolution=" + resolution } };
}

/** Options of a filtered update or delete (docs/clients.md, "Many rows"). */
export interface FilteredWriteOptions extends CallOptions {
  /** Refuses the request (400, nothing written) when more rows than this would change. */
  maxAffected?: number | undefined;
}

/**
 * The query and `Prefer` header of a filtered update or delete: the filter
 * written in the URL grammar, as a list writes it.
 * @throws TypeError on an empty filter (it would change every row) or a value the grammar cannot carry
 */
export function filteredRequest(
  where: object,
  codecs: ColumnCodecs,
  options: FilteredWriteOptions = {},
): Pick<ApiRequest, "query" | "headers"> {
  const query = whereParams(where, codecs);
  if (query.length === 0)
    throw new TypeError("a filtered write needs at least one filter");
  if (options.maxAffected === undefined) return { query };
  return {
    query,
    headers: {
      prefer: "max-affected=" + count("maxAffected", options.maxAffected),
    },
  };
}

/** The versions of the rows this client returned, by row object: what {@link etagOf} reads. */
const versions = new WeakMap<object, string>();

/**
 * The version of a row this client returned (a read, a create or an
 * update): the answer's `ETag`, to pass as `ifMatch` so that a later write
 * happens only if nobody changed the row in between. Undefined for a value
 * that came with no tag (a list item, an object made by hand).
 */
export function etagOf(row: object): string | undefined {
  return versions.get(row);
}

/** Sends a request and parses its JSON answer, keeping the answer's `ETag` for {@link etagOf}. */
export async function requestJson<T>(
  client: HttpClient,
  request: ApiRequest,
  options?: CallOptions,
): Promise<T> {
  const response = await client.send(request, options);
  const value = JSON.parse(response.body) as unknown;
  if (
    response.etag !== undefined &&
    typeof value === "object" &&
    value !== null
  )
    versions.set(value, response.etag);
  return value as T;
}

/** One page of a list. */
export function fetchPage<T>(
  client: HttpClient,
  path: string,
  codecs: ColumnCodecs,
  query: ListParams,
  options?: CallOptions,
): Promise<ListPage<T>> {
  return requestJson<ListPage<T>>(
    client,
    { method: "GET", path, query: listParams(query, codecs) },
    options,
  );
}

/**
 * Walks a list page by page: the first page as asked, then each
 * `next_cursor` with the same query (without `page`, `offset` and `count`,
 * which a cursor replaces), until a page has none.
 */
export async function* walkPages<T>(
  client: HttpClient,
  path: string,
  codecs: ColumnCodecs,
  query: ListParams,
  options?: CallOptions,
): AsyncGenerator<ListPage<T>, void, undefined> {
  let params: ListParams = query;
  for (;;) {
    const page = await fetchPage<T>(client, path, codecs, params, options);
    yield page;
    if (page.next_cursor === undefined || page.next_cursor === params.cursor)
      return;
    const next: ListParams = { ...params, cursor: page.next_cursor };
    delete next.page;
    delete next.offset;
    delete next.count;
    params = next;
  }
}

/**
 * One change of a resource's feed (docs/decisions/1337-change-feed.md):
 * a row created or updated (as a read returns it, `select` applied), the
 * key of a row deleted or gone out of the filter or scope (`leave`), or
 * `reload`: the feed could not resume where it stopped, so list again.
 * `id` is the position to resume from.
 */
export type ChangeEvent<Item, Key> =
  | { type: "create" | "update"; id: string; row: Item }
  | { type: "delete" | "leave"; id: string; key: Key }
  | { type: "reload"; id: string };

/** What a feed selects: the list grammar's filters, search and projection. */
export interface EventsParams {
  where?: object | undefined;
  select?: readonly string[] | undefined;
  search?: string | undefined;
}

/**
 * One failure a feed recovers from by itself: the service answered 5xx,
 * 408 or 429, could not be reached, or broke the stream. The feed waits
 * `delayMs` (exponential from `backoff.initialMs`, capped at
 * `backoff.maxMs`, with jitter) and tries again
 * (docs/decisions/1361-feed-positions-and-client-retries.md).
 */
export interface FeedRetry {
  /** What failed: the answer as a problem document, or the connection. */
  error: ProblemError | TransportError;
  /** Failures in a row, from 1; a stream that opens resets it. */
  attempt: number;
  /** Milliseconds until the next attempt. */
  delayMs: number;
}

/** How long a feed waits after a failure: from `initialMs` (default 1000), doubling, at most `maxMs` (default 30000). */
export interface FeedBackoff {
  initialMs?: number | undefined;
  maxMs?: number | undefined;
}

/** Options of a feed. */
export interface EventsOptions {
  /** Resume after this event (an `id` of an earlier {@link ChangeEvent}); default: from now. */
  lastEventId?: string | undefined;
  /** Ends the iteration. */
  signal?: AbortSignal | undefined;
  /**
   * Told of each failure the feed retries, before it waits; throwing from
   * it ends the iteration with that error. Without it, failures are retried
   * silently. A refusal (another 4xx) is never retried, nor a stream the
   * service ends with `failed`: the iteration rejects with the problem.
   */
  onError?: ((retry: FeedRetry) => void) | undefined;
  /** The wait after failures in a row; see {@link FeedBackoff}. */
  backoff?: FeedBackoff | undefined;
}

/**
 * The wait before attempt `attempt + 1` after `attempt` failures in a row:
 * `initialMs * 2^(attempt-1)`, at most `maxMs`, up to half of it taken off
 * at random (so clients a restart dropped together do not return together).
 * In milliseconds, between half the step and the step.
 */
export function backoffDelay(
  attempt: number,
  backoff: FeedBackoff = {},
): number {
  const initial = backoff.initialMs ?? 1000;
  const max = backoff.maxMs ?? 30_000;
  const step = Math.min(
    max,
    initial * 2 ** Math.min(Math.max(attempt, 1) - 1, 30),
  );
  return Math.round(step / 2 + Math.random() * (step / 2));
}

/** Whether a status is worth retrying: the service failed (5xx), or asked to be asked again later (408, 429). */
function retryable(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** A `Retry-After` of whole seconds, in milliseconds; undefined when absent or a date. */
function retryAfterMs(header: string | null): number | undefined {
  return header !== null && /^\d+$/.test(header.trim())
    ? Number(header.trim()) * 1000
    : undefined;
}

/** One message of a Server-Sent Events stream, as the HTML standard parses it. */
interface SseMessage {
  event: string;
  data: string;
  /** The stream's last event id after this message (`id:` lines without data set it too). */
  id: string | undefined;
  retry?: number;
}

/**
 * Parses a Server-Sent Events stream: lines ending in CR, LF or CRLF,
 * `field: value` pairs, comments, and one message per blank line; a
 * message with no data is not dispatched, but its `id` still counts.
 */
async function* sseMessages(
  body: ReadableStream<Uint8Array>,
  lastId: string | undefined,
): AsyncGenerator<SseMessage, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id = lastId;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: RegExpExecArray | null;
      while ((end = /\r\n|\r|\n/.exec(buffer)) !== null) {
        // A CR at the very end may be the first half of a CRLF still on its way.
        if (end[0] === "\r" && end.index === buffer.length - 1) break;
        const line = buffer.slice(0, end.index);
        buffer = buffer.slice(end.index + end[0].length);
        if (line === "") {
          if (data.length > 0)
            yield { event: event || "message", data: data.join("\n"), id };
          else yield { event: "", data: "", id };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else if (field === "id" && !value.includes("\0")) id = value;
        else if (field === "retry" && /^\d+$/.test(value))
          yield { event: "", data: "", id, retry: Number(value) };
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * The problem a `failed` event carries: the service cannot judge this
 * feed's filters and scope on a change, so the stream ended for good
 * (docs/decisions/1364-feed-isolation.md). Its status is the document's
 * own, 422 when it names none.
 */
function failedProblem(data: string): ProblemDocument {
  let status = 422;
  try {
    const parsed = JSON.parse(data) as unknown;
    if (isRecord(parsed) && typeof parsed["status"] === "number")
      status = parsed["status"];
  } catch {
    // not JSON: problemOf says so
  }
  return problemOf(status, data);
}

/** The query parameters of a feed: filters, then `select` and `search`. */
export function eventsParams(
  query: EventsParams,
  codecs: ColumnCodecs,
): [string, string][] {
  // A list's parameters without paging, order or expansion: written by the list's own serializer.
  return listParams(
    { where: query.where, select: query.select, search: query.search },
    codecs,
  );
}

/** One message of a feed as sent: the event's type, its position, and its data as JSON text. */
export interface RawChangeEvent {
  type: "create" | "update" | "delete" | "leave" | "reload";
  id: string;
  data: string;
}

const CHANGE_TYPES: readonly string[] = [
  "create",
  "update",
  "delete",
  "leave",
  "reload",
];

/**
 * Follows `GET <path>/events?<query>` and yields each message as sent,
 * reconnecting by itself and resuming after the last event received, so
 * nothing is lost or repeated across a dropped connection or a server
 * restart. A stream the service ends is reopened after the delay it asks
 * (one second by default); a failure (5xx, 408, 429, no connection, a
 * broken stream) is retried with exponential backoff and jitter, each told
 * to `options.onError` (docs/decisions/1361-feed-positions-and-client-retries.md).
 * A `failed` event (the service cannot judge this feed's filters and scope
 * on a change, docs/decisions/1364-feed-isolation.md) is never retried:
 * following again would fail the same way.
 * It uses `fetch` itself, not the client's transport, since a transport
 * answers whole bodies. Ends when `options.signal` aborts or the loop breaks.
 * The client's token is asked for at every connection (a {@link TokenProvider} may refresh it).
 * @throws ProblemError when the service refuses the request (any other 4xx: a bad filter, a missing or refused token (401), a role not granted the feed (403), an unknown Last-Event-ID), answers 2xx with no event stream, or ends the stream with a `failed` event (its problem, a 422 `/problems/subscription-failed`); whatever `onError` throws
 */
export async function* followEventStream(
  client: HttpClient,
  path: string,
  query: QueryPairs,
  options: EventsOptions = {},
): AsyncGenerator<RawChangeEvent, void, undefined> {
  let lastId = options.lastEventId;
  let retry = 1000;
  let attempt = 0;
  while (!options.signal?.aborted) {
    // Asked at every (re)connection, so a token provider may refresh the token a long feed outlives.
    const request = client.prepare(
      { method: "GET", path: path + "/events", query },
      await client.credential(),
    );
    const headers: Record<string, string> = {
      ...request.headers,
      accept: "text/event-stream",
    };
    if (lastId !== undefined) headers["last-event-id"] = lastId;
    let failure: ProblemError | TransportError | undefined;
    let atLeast: number | undefined;
    let response: Response | undefined;
    try {
      const init: RequestInit = { headers };
      if (options.signal) init.signal = options.signal;
      response = await fetch(request.url, init);
    } catch (e) {
      if (options.signal?.aborted) return;
      failure = new TransportError(
        "cannot reach " + request.url + ": " + describeFailure(e),
        { cause: e },
      );
    }
    if (response && !response.ok) {
      const problem = problemOf(response.status, await response.text());
      if (!retryable(response.status)) throw new ProblemError(problem);
      failure = new ProblemError(problem);
      atLeast = retryAfterMs(response.headers.get("retry-after"));
    } else if (response) {
      const type = response.headers.get("content-type") ?? "";
      if (!response.body || !/^text\/event-stream\b/i.test(type)) {
        await response.body?.cancel().catch(() => {});
        throw new ProblemError({
          status: response.status,
          title: "Not an event stream",
          detail:
            request.url +
            " answered HTTP " +
            response.status +
            " with " +
            (type || "no content type") +
            ", not text/event-stream: is the feed enabled (events = true) on this resource?",
        });
      }
      attempt = 0;
      let refused: ProblemError | undefined;
      try {
        for await (const m of sseMessages(response.body, lastId)) {
          lastId = m.id;
          if (m.retry !== undefined) retry = m.retry;
          if (m.event === "reconnect") break;
          if (m.event === "failed") {
            refused = new ProblemError(failedProblem(m.data));
            break;
          }
          if (CHANGE_TYPES.includes(m.event))
            yield {
              type: m.event as RawChangeEvent["type"],
              id: m.id ?? "",
              data: m.data,
            };
        }
      } catch (e) {
        if (options.signal?.aborted) return;
        failure = new TransportError(
          "the stream of " + request.url + " broke: " + describeFailure(e),
          { cause: e },
        );
      }
      // Following again would meet the same refusal: it ends the feed, as a 4xx does.
      if (refused) throw refused;
    }
    if (options.signal?.aborted) return;
    let delay = retry;
    if (failure) {
      attempt++;
      delay = Math.max(backoffDelay(attempt, options.backoff), atLeast ?? 0);
      options.onError?.({ error: failure, attempt, delayMs: delay });
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, delay);
      options.signal?.addEventListener(
        "abort",
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });
  }
}

/**
 * {@link followEventStream} of the rows `query` selects, each event's data
 * parsed: the row of a create or update, the key of a delete or leave.
 * @throws ProblemError when the service refuses the query (400 lists what is allowed); see {@link followEventStream}
 */
export async function* followEvents<Item, Key>(
  client: HttpClient,
  path: string,
  codecs: ColumnCodecs,
  query: EventsParams,
  options: EventsOptions = {},
): AsyncGenerator<ChangeEvent<Item, Key>, void, undefined> {
  const pairs = eventsParams(query, codecs);
  for await (const e of followEventStream(client, path, pairs, options)) {
    if (e.type === "reload") yield { type: "reload", id: e.id };
    else if (e.type === "create" || e.type === "update")
      yield { type: e.type, id: e.id, row: JSON.parse(e.data) as Item };
    else yield { type: e.type, id: e.id, key: JSON.parse(e.data) as Key };
  }
}
