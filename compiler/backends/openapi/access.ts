/**
 * What the OpenAPI document says about authentication and access rules
 * (docs/decisions/1367-access-rules.md), only when the schema has an `auth`
 * block: the bearer scheme its `jwt` block verifies, declared once; on each
 * operation of a served table the security requirement, the 401 and 403
 * answers, and in its description the roles that may use it and the
 * columns hidden from some of them. Without an `auth` block nothing here
 * is written and the document is what it was before.
 */
import type { AccessDescriptor, ServiceDescriptor, TableDescriptor } from "../../../runtime/descriptor.js";
import { rolesHiding } from "../../../runtime/access/rules.js";
import { PROBLEM_SCHEMA, type ProblemStatus } from "./problems.js";
import type { Operation, Response, SecurityScheme } from "./types.js";

/**
 * The name of the bearer scheme declared for an `auth` block's `jwt` when
 * the `api` block declares none (docs/decisions/1367-access-rules.md).
 */
export const DEFAULT_BEARER_SCHEME = "bearerAuth";

/** The two answers of access rules, declared under `components.responses` only when the schema has an `auth` block. */
export const ACCESS_STATUSES = {
  unauthorized: {
    status: "401",
    name: "Unauthorized",
    description:
      "No credential was sent and this operation is not served without one (the schema has no anonymous role, or does not grant it this operation), or the bearer token was refused (type /problems/unauthorized, location header.authorization). The problem never says which check a refused token failed.",
  },
  forbidden: {
    status: "403",
    name: "Forbidden",
    description:
      "No role of the caller's token is granted this operation on this resource, or (a write) the row it would store is outside what the caller's role may write, and nothing was written (type /problems/forbidden).",
  },
} as const satisfies Record<string, ProblemStatus>;

/** How a service's operations are governed, computed once per document. */
export interface Governance {
  /** The bearer scheme each operation requires; absent when the `auth` block has no `jwt` (a `--middleware` sets the caller). */
  scheme?: string;
  /** Whether the document must declare {@link scheme}, the `api` block declaring no bearer scheme itself. */
  declare: boolean;
  /** The role of a request without a token; absent: such a request is a 401. */
  anonymous?: string;
}

/**
 * The governance of `service`'s operations (docs/decisions/1367-access-rules.md),
 * or undefined without an `auth` block. A `jwt` block's scheme is the first
 * `bearer` scheme the `api` block declares, else {@link DEFAULT_BEARER_SCHEME}
 * (with a number added when the `api` block uses that name otherwise).
 */
export function governance(service: ServiceDescriptor): Governance | undefined {
  const auth = service.auth;
  if (!auth) return undefined;
  const g: Governance = { declare: false };
  if (auth.anonymous !== undefined) g.anonymous = auth.anonymous;
  if (!auth.jwt) return g;
  const declared = service.securitySchemes.find((s) => s.scheme.toLowerCase() === "bearer");
  if (declared) {
    g.scheme = declared.name;
    return g;
  }
  const taken = new Set(service.securitySchemes.map((s) => s.name));
  let name = DEFAULT_BEARER_SCHEME;
  for (let n = 2; taken.has(name); n++) name = `${DEFAULT_BEARER_SCHEME}${n}`;
  g.scheme = name;
  g.declare = true;
  return g;
}

/** The bearer scheme of the `auth` block's `jwt`, as `components.securitySchemes` declares it. */
export function bearerScheme(service: ServiceDescriptor): SecurityScheme {
  const auth = service.auth;
  const jwt = auth?.jwt;
  const parts = ["A JSON Web Token, sent as `Authorization: Bearer <token>` (never in the query string)."];
  if (jwt) {
    const checks = [`signed with ${jwt.algorithms.join(", ")}`];
    if (jwt.issuer !== undefined) checks.push(`issued by \`${jwt.issuer}\``);
    if (jwt.audience !== undefined) checks.push(`for the audience \`${jwt.audience}\``);
    parts.push(`It must be ${checks.join(", ")}.`);
    if (jwt.jwksUrl !== undefined)
      parts.push("While its keys cannot be fetched the service answers 503 (type /problems/keys-unavailable).");
  }
  if (auth) {
    parts.push(
      `The roles it may carry, at \`${auth.roleClaim.join(".")}\`: ${auth.roles.map((r) => `\`${r}\``).join(", ")}` +
        (auth.defaultRole !== undefined ? ` (\`${auth.defaultRole}\` when it names none).` : "."),
    );
    parts.push(
      auth.anonymous !== undefined
        ? `Without a token the caller has the role \`${auth.anonymous}\`.`
        : "A request without a token is a 401.",
    );
  }
  return { type: "http", scheme: "bearer", bearerFormat: "JWT", description: parts.join(" ") };
}

/**
 * `components.responses` of {@link ACCESS_STATUSES}: problem documents, the
 * 401 with its `WWW-Authenticate` challenge (RFC 6750 §3).
 * @param realm the challenge's realm as the service sends it by default (its title)
 */
export function accessResponses(realm: string): Record<string, Response> {
  const content = { "application/problem+json": { schema: { $ref: `#/components/schemas/${PROBLEM_SCHEMA}` } } };
  return {
    [ACCESS_STATUSES.unauthorized.name]: {
      description: ACCESS_STATUSES.unauthorized.description,
      headers: {
        "WWW-Authenticate": {
          description: `The bearer challenge (RFC 6750 §3): \`Bearer realm="${realm}"\` (the realm is the service's title unless it is served with another), with \`, error="invalid_token"\` when a token was sent and refused.`,
          schema: { type: "string" },
        },
      },
      content,
    },
    [ACCESS_STATUSES.forbidden.name]: { description: ACCESS_STATUSES.forbidden.description, content },
  };
}

const refs = new Map<string, Response>();

/** The one `$ref` object of a status's response, shared by every operation as the problem responses' are. */
function responseRef(name: string): Response {
  let r = refs.get(name);
  if (!r) refs.set(name, (r = { $ref: `#/components/responses/${name}` }));
  return r;
}

function quoted(names: readonly string[]): string {
  return names.map((n) => `\`${n}\``).join(", ");
}

/**
 * How an operation meets the rows: it lists them, follows their changes,
 * names one by key, creates rows, or writes every row a filter matches.
 */
export type OperationReach = "list" | "events" | "item" | "create" | "filtered" | "collection";

/** What the row rules mean for an operation of each reach (docs/decisions/1367-access-rules.md). */
const REACH_TEXT: Readonly<Record<OperationReach, string>> = {
  list: "Each sees only the rows its rules allow.",
  events: "Each is sent the changes of the rows its rules allow (`leave` when a row moves out of them).",
  item: "A row outside the caller's rules is a 404, as a missing one is.",
  create: "A row the caller's rules would not let it write is refused (403) and nothing is stored.",
  filtered: "Only the matching rows the caller's rules allow are changed.",
  collection: "A row it writes must be one the caller's rules allow, else 403 and nothing is stored.",
};

/** The paragraph of an operation's description saying who may use it and what some of them do not see. */
function accessText(table: TableDescriptor, rule: string, reach: OperationReach, gov: Governance): string {
  const blocks = table.access ?? [];
  const roles = rolesGranted(blocks, rule);
  const lines: string[] = [];
  if (roles.length === 0) {
    // A caller without a token is the anonymous role's, refused with a 401 (runtime/http/access.ts).
    const refused = gov.anonymous !== undefined ? "(403; 401 without a token)" : "(403)";
    lines.push(
      blocks.length === 0
        ? `Access: no role; the table declares no access rules, so every caller is refused ${refused}.`
        : `Access: no role is granted this operation; every caller is refused ${refused}.`,
    );
  } else {
    let who = `Access: roles ${quoted(roles)}`;
    if (gov.anonymous !== undefined)
      who += roles.includes(gov.anonymous)
        ? ` (\`${gov.anonymous}\` is a caller without a token)`
        : `; a caller without a token (role \`${gov.anonymous}\`) is refused with a 401`;
    lines.push(`${who}. ${REACH_TEXT[reach]}`);
  }
  const hidden: string[] = [];
  for (const c of table.columns) {
    if (c.hidden) continue;
    const from = rolesHiding(blocks, c.name).filter((r) => roles.includes(r));
    if (from.length > 0) hidden.push(`\`${c.name}\` (hidden from: ${from.join(", ")})`);
  }
  if (hidden.length > 0)
    lines.push(
      `Columns hidden from some roles, which neither see, select, filter, sort nor write them: ${hidden.join(", ")}.`,
    );
  return lines.join(" ");
}

/**
 * Adds what the access rules say to one operation of `table`
 * (docs/decisions/1367-access-rules.md): the bearer requirement (and `{}`,
 * optional, when requests without a token have a role) after the resource's
 * own `security`, the 401 and 403 answers, and the roles that may use it.
 * @param rule the operation as the rules name it: `list`, `read`, `create`, `update`, `delete`, `events` or an action's name
 * @param reach how the operation meets the rows, for what its rules mean there
 */
export function governOperation(
  o: Operation,
  table: TableDescriptor,
  rule: string,
  reach: OperationReach,
  gov: Governance,
): void {
  if (gov.scheme !== undefined) {
    const security = [...(o.security ?? [])];
    const has = (name: string | undefined): boolean =>
      security.some((r) => (name === undefined ? Object.keys(r).length === 0 : name in r));
    if (!has(gov.scheme)) security.push({ [gov.scheme]: [] });
    if (gov.anonymous !== undefined && !has(undefined)) security.push({});
    o.security = security;
  }
  o.responses = {
    ...o.responses,
    [ACCESS_STATUSES.unauthorized.status]: responseRef(ACCESS_STATUSES.unauthorized.name),
    [ACCESS_STATUSES.forbidden.status]: responseRef(ACCESS_STATUSES.forbidden.name),
  };
  const text = accessText(table, rule, reach, gov);
  o.description = o.description !== undefined && o.description !== "" ? `${o.description}\n\n${text}` : text;
}

/**
 * The roles `blocks` grant `op` (a row operation, `events` or an action's
 * name), each once, in the order the blocks name them. The descriptor's
 * `ops` are already expanded (compiler/access.ts). Empty: no role may use it.
 */
export function rolesGranted(blocks: readonly AccessDescriptor[], op: string): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    if (!b.ops.includes(op)) continue;
    for (const r of b.roles) if (!out.includes(r)) out.push(r);
  }
  return out;
}

/** The roles a column is hidden from: stated once, in runtime/access/rules.ts, for every backend. */
export { rolesHiding };
