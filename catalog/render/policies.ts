/**
 * What `resc pull` says of a database's row-level security
 * (docs/decisions/1368-database-row-level-security.md): each table that has
 * it switched on and each of its policies (`pg_policies`: name, command,
 * roles, `USING` and `WITH CHECK`) is reported, since the policies keep
 * applying to every role but the table's owner (unless forced), superusers
 * and `BYPASSRLS` roles. A policy whose conditions are comparisons of a
 * column with a claim PostgREST's way
 * (`org = current_setting('request.jwt.claims', true)::jsonb ->> 'org'`) or
 * with a literal, joined by AND, is also said as the declared rule that
 * means the same (`rows org = claim.org`, decision 1367), for a schema that
 * wants resc to judge it too (the change feed, which the policies never
 * reach). Nothing is written into the schema: an `access` block needs the
 * `auth` block's roles and claims, which the database does not know.
 */
import type { Placed } from "../model.js";

/** One row of `pg_policies`, as `resc pull` reads it. */
export interface PulledPolicy {
  table: Placed;
  name: string;
  /** False for `AS RESTRICTIVE`: AND-ed with the others instead of OR-ed. */
  permissive: boolean;
  command: "ALL" | "SELECT" | "INSERT" | "UPDATE" | "DELETE";
  /** The roles it applies to; `public` for every role. */
  roles: string[];
  /** The `USING` condition as PostgreSQL prints it, absent when the policy has none. */
  using?: string;
  /** The `WITH CHECK` condition as PostgreSQL prints it, absent when the policy has none. */
  withCheck?: string;
}

/** A table whose row-level security is on: `forced` when it applies to the table's owner too. */
export interface PulledRowSecurity {
  table: Placed;
  forced: boolean;
}

/** The setting PostgREST (and resc's database-role mode) puts the claims in. */
const CLAIMS = "request.jwt.claims";

/** A cast as PostgreSQL prints it: `::text`, `::character varying`, `::"char"`, `::uuid[]`. */
const CAST =
  /::(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_.]*(?: varying| precision| without time zone| with time zone)?)(?:\[\])*/g;

/** A column as PostgreSQL prints it: bare, or quoted. */
const COLUMN = String.raw`([a-z_][a-z0-9_$]*|"(?:[^"]|"")+")`;
/** A literal the rule vocabulary takes: a number, a string, a boolean. */
const LITERAL = String.raw`(-?\d+(?:\.\d+)?|'(?:[^']|'')*'|true|false)`;
/** The claims document, its members on the way (`§C -> 'app_metadata'`), then the claim (`->> 'team'`). */
const CLAIM = String.raw`(§C(?: -> '[A-Za-z_][A-Za-z0-9_]*')* ->> '[A-Za-z_][A-Za-z0-9_]*'|§L:[A-Za-z_][A-Za-z0-9_]*|§UID)`;
const OPERATOR = String.raw`(=|<>|!=|<=|>=|<|>)`;

/** A comparison's operator seen from the column's side when the column stands on the right. */
const MIRRORED: Readonly<Record<string, string>> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=" };

/** One comparison of a column, said in the rule vocabulary. */
export interface RuleTerm {
  /** The column as the database names it. */
  column: string;
  /** The rule's operator: `=`, `!=`, `<`, `<=`, `>`, `>=`. */
  op: string;
  /** A claim's path in the token (`["org"]`, `["app_metadata", "team"]`), or a literal as the rule writes it. */
  value: { claim: string[] } | { literal: string };
}

/** A column as PostgreSQL prints it, unquoted. */
function unquote(column: string): string {
  return column.startsWith('"') ? column.slice(1, -1).replace(/""/g, '"') : column;
}

/** The claim path of a {@link CLAIM} match: `sub` for Supabase's `auth.uid()`. */
function claimPath(text: string): string[] {
  if (text === "§UID") return ["sub"];
  if (text.startsWith("§L:")) return [text.slice(3)];
  return [...text.matchAll(/'([A-Za-z0-9_]+)'/g)].map((m) => m[1]!);
}

/**
 * The condition `expr` (as `pg_policies` prints it) as comparisons of a
 * column with a claim or a literal, all of which must hold; undefined when
 * it is anything else (an OR, a NOT, a function, a subquery, two columns).
 * Claims are read from `current_setting('request.jwt.claims', true)` cast to
 * json or jsonb (through `nullif(…, '')` too), from PostgREST's former
 * `request.jwt.claim.<name>` settings, and from Supabase's `auth.uid()` (the
 * `sub`) and `auth.jwt()`. Casts are looked through: the rule is judged on
 * the column's own type.
 */
export function ruleTerms(expr: string): RuleTerm[] | undefined {
  let s = expr.replace(/\s+/g, " ").replace(CAST, "");
  s = s
    .replace(/current_setting\('request\.jwt\.claim\.([A-Za-z_][A-Za-z0-9_]*)'(?:, (?:true|false))?\)/g, "§L:$1")
    .replace(
      new RegExp(String.raw`current_setting\('${CLAIMS.replace(/\./g, "\\.")}'(?:, (?:true|false))?\)`, "g"),
      "§C",
    )
    .replace(/\bauth\.uid\(\)/g, "§UID")
    .replace(/\bauth\.jwt\(\)/g, "§C")
    .replace(/NULLIF\(\s*(§C|§L:[A-Za-z0-9_]+)\s*,\s*''\s*\)/gi, "$1");
  // Anything that still calls a function, or says OR or NOT, is no conjunction of comparisons.
  if (/[A-Za-z0-9_]\(|\bOR\b|\bNOT\b|\bSELECT\b|\bIN\b|\bIS\b/i.test(s.replace(/'(?:[^']|'')*'/g, "''")))
    return undefined;
  s = s.replace(/[()]/g, "").replace(/\s+/g, " ").trim();
  const terms: RuleTerm[] = [];
  const forward = new RegExp(`^${COLUMN} ${OPERATOR} (?:${CLAIM}|${LITERAL})$`);
  const backward = new RegExp(`^(?:${CLAIM}|${LITERAL}) ${OPERATOR} ${COLUMN}$`);
  for (const part of s.split(/ AND /i)) {
    const f = forward.exec(part);
    const b = f ? undefined : backward.exec(part);
    if (!f && !b) return undefined;
    const column = unquote(f ? f[1]! : b![4]!);
    let op = f ? f[2]! : b![3]!;
    if (b) op = MIRRORED[op] ?? op;
    if (op === "<>") op = "!=";
    const claim = f ? f[3] : b![1];
    const literal = f ? f[4] : b![2];
    terms.push({ column, op, value: claim !== undefined ? { claim: claimPath(claim) } : { literal: literal! } });
  }
  return terms;
}

/** The operations a `rows(…)` line of a policy's command covers; undefined for every operation. */
const ROW_OPS: Readonly<Record<PulledPolicy["command"], string | undefined>> = {
  ALL: undefined,
  SELECT: "list, read",
  INSERT: undefined,
  UPDATE: "update",
  DELETE: "delete",
};

/** `terms` as a rule's text, each column by the name the pulled schema gives it. */
function ruleText(terms: RuleTerm[], columnName: (column: string) => string): string {
  return terms
    .map((t) => {
      const lit = "literal" in t.value ? t.value.literal : "";
      const value =
        "claim" in t.value
          ? `claim.${t.value.claim[t.value.claim.length - 1]}`
          : lit.startsWith("'")
            ? JSON.stringify(lit.slice(1, -1).replace(/''/g, "'"))
            : lit;
      return `${columnName(t.column)} ${t.op} ${value}`;
    })
    .join(" and ");
}

/** The claims `terms` name that sit elsewhere than at their name, as `claim` lines would declare them. */
function claimNotes(terms: RuleTerm[]): string[] {
  const out: string[] = [];
  for (const t of terms)
    if ("claim" in t.value && t.value.claim.length > 1)
      out.push(`claim ${t.value.claim.at(-1)} … @path(${JSON.stringify(t.value.claim.join("."))})`);
  return out;
}

/**
 * What `resc pull` reports of one policy: `what` names it (table, policy,
 * command, roles), `why` gives its conditions and, when each of them can be
 * said as a declared rule ({@link ruleTerms}), the `rows`/`check` lines
 * meaning the same.
 * @param columnName the pulled schema's name of a column of the policy's table
 * @param tableName the pulled schema's name of the policy's table
 * @param enforced false when the table's row-level security is off (the policy is kept but applies to no one)
 */
export function policyReport(
  p: PulledPolicy,
  tableName: string,
  columnName: (column: string) => string,
  enforced = true,
): { what: string; why: string } {
  const roles = p.roles.includes("public") ? "every role" : p.roles.join(", ");
  const what = `row-level security policy ${tableName}.${p.name} (${p.command}${p.permissive ? "" : ", restrictive"}, to ${roles})`;
  const said: string[] = [];
  if (p.using !== undefined) said.push(`USING ${p.using.replace(/\s+/g, " ")}`);
  if (p.withCheck !== undefined) said.push(`WITH CHECK ${p.withCheck.replace(/\s+/g, " ")}`);
  const lines: string[] = [];
  let expressible = true;
  const notes: string[] = [];
  if (p.using !== undefined) {
    const terms = ruleTerms(p.using);
    if (terms === undefined) expressible = false;
    else {
      const ops = ROW_OPS[p.command];
      lines.push(`rows${ops === undefined ? "" : `(${ops})`} ${ruleText(terms, columnName)}`);
      notes.push(...claimNotes(terms));
    }
  }
  if (p.withCheck !== undefined) {
    const terms = ruleTerms(p.withCheck);
    if (terms === undefined) expressible = false;
    else {
      lines.push(`check ${ruleText(terms, columnName)}`);
      notes.push(...claimNotes(terms));
    }
  }
  const access = p.roles.includes("public") ? "access <every role>" : `access ${p.roles.join(", ")}`;
  const rule =
    expressible && lines.length > 0
      ? `; as a declared rule: ${access} { ${lines.join("; ")} }` +
        (notes.length > 0 ? ` with ${[...new Set(notes)].join(", ")} in the auth block` : "")
      : "; no declared rule says it (only comparisons of a column with a claim or a literal, joined by AND, are)";
  const oneLine = (text: string): string => text.replace(/\s+/g, " ");
  return {
    what: oneLine(what),
    why: oneLine(
      (enforced
        ? "the database enforces it (serve with the auth block's database settings, docs/access.md); "
        : "not enforced: row-level security is off on its table; ") + `${said.join(" ")}${rule}`,
    ),
  };
}
