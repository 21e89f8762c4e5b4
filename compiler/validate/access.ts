/**
 * `access` blocks (docs/decisions/1367-access-rules.md): who they grant
 * (roles the `auth` block declares), what (operations the resource serves,
 * its feed, its declared actions), and rules a request can be judged by.
 * A rule is the filter vocabulary over the table's columns: each column must
 * exist and not be hidden (a refusal names its location, and a row rule's
 * 404-or-not would reveal a hidden value), each operator must be one the
 * column's type takes in a filter (runtime/query/operators.ts, so a rule
 * compiles wherever a filter does), and each claim or literal must be a
 * value of the column's type. Stamps and hidden columns must not contradict
 * one another or the table.
 */
import type {
  AccessDecl,
  ClaimDecl,
  ColumnDecl,
  RuleExprDecl,
  RuleOperandDecl,
  Span,
  TableDecl,
  TypeRef,
} from "../../language/ir.js";
import type { ColumnDescriptor } from "../../runtime/descriptor.js";
import { operatorValue, type Operator } from "../../runtime/operators.js";
import { operatorsFor } from "../../runtime/query/operators.js";
import { ACCESS_OP_SETS, ACCESS_OP_WORDS, allOps, claimFitsColumn, declaredRoles, grantedOps } from "../access.js";
import { columnDescriptor } from "../descriptor.js";
import type { ResolvedType } from "../schema-index.js";
import { qualified, typeText, withHint, type ValidationContext } from "./context.js";

type Cmp = Extract<RuleExprDecl, { kind: "cmp" }>;

/** Each operator in the rule syntax, for messages. */
const WRITTEN: Partial<Record<Operator, string>> = {
  eq: "=",
  ne: "!=",
  lt: "<",
  lte: "<=",
  gt: ">",
  gte: ">=",
  in: "in",
  nin: "not in",
  has: "has",
  isnull: "is null",
  notnull: "is not null",
};

/** Ordering a boolean means nothing a rule should say, though a filter accepts it. */
const ORDERING: readonly Operator[] = ["lt", "lte", "gt", "gte"];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A claim the rules may name: declared, or the implicit `sub`. */
interface KnownClaim {
  name: string;
  type: TypeRef;
  nullable: boolean;
}

/** A column a rule names, with its table (the row's own, or the one a forward relation reaches). */
interface RuleColumn {
  table: TableDecl;
  column: ColumnDecl;
  type: ResolvedType;
  descriptor: ColumnDescriptor;
}

/** An operand without its spans, to compare two as written. */
function withoutSpan(o: RuleOperandDecl): unknown {
  if (o.kind === "list") return { kind: "list", items: o.items.map(withoutSpan) };
  const rest: Record<string, unknown> = { ...o };
  delete rest["span"];
  return rest;
}

/** `access a, b`: the header's span, for diagnostics about the block as a whole. */
function headerSpan(block: AccessDecl): Span {
  const last = block.roleSpans[block.roleSpans.length - 1];
  if (!last) return { ...block.span, endLine: block.span.line, endColumn: block.span.column + 6, length: 6 };
  return {
    ...block.span,
    endLine: last.endLine,
    endColumn: last.endColumn,
    length: last.offset + last.length - block.span.offset,
  };
}

function describeType(t: TypeRef, nullable = false): string {
  return typeText(t) + (nullable ? "?" : "");
}

/** Everything one table's access blocks are checked against. */
class TableRules {
  private readonly claims: Map<string, KnownClaim>;

  constructor(
    private readonly ctx: ValidationContext,
    private readonly table: TableDecl,
    claims: readonly ClaimDecl[],
  ) {
    this.claims = new Map();
    for (const c of claims) if (!this.claims.has(c.name)) this.claims.set(c.name, c);
    const span = table.nameSpan;
    if (!this.claims.has("sub"))
      this.claims.set("sub", { name: "sub", type: { name: "text", args: [], arrayDims: 0, span }, nullable: false });
  }

  private column(t: TableDecl, name: string): RuleColumn | undefined {
    const column = this.ctx.index.column(t, name);
    if (!column) return undefined;
    return {
      table: t,
      column,
      type: this.ctx.index.resolve(column.type),
      descriptor: columnDescriptor(this.ctx.index, t, column),
    };
  }

  /** The column a rule's left side names, reported when it cannot be ruled on. */
  private ruleColumn(left: Cmp["left"]): RuleColumn | undefined {
    let t = this.table;
    if (left.relation !== undefined) {
      const forward = this.table.columns.filter((c) => c.ref);
      const ref = forward.find((c) => c.ref!.relation === left.relation);
      if (!ref) {
        const inverse = this.ctx.index.schema.tables.some((o) =>
          o.columns.some((c) => c.inverse?.name === left.relation && c.ref?.target === this.table.name),
        );
        this.ctx.error(
          "unknown-relation",
          inverse
            ? `"${left.relation}" is an inverse relation of table "${this.table.name}": a rule follows only a forward relation, to the one row a reference names`
            : withHint(
                `table "${this.table.name}" has no forward relation "${left.relation}" (forward relations: ${forward.map((c) => c.ref!.relation).join(", ") || "none"})`,
                left.relation,
                forward.map((c) => c.ref!.relation),
              ),
          left.span,
        );
        return undefined;
      }
      const target = this.ctx.index.refTarget(ref.ref!);
      if (!target) return undefined; // the reference itself is reported by the relation rules
      t = target.table;
    }
    return this.known(t, left.column, left.span, "a rule");
  }

  /** A column of `t` that a rule, stamp or hide names: `unknown-column`, or `access-hidden-column` unless `hidden` is allowed. */
  private known(t: TableDecl, name: string, span: Span, what: string, hiddenAllowed = false): RuleColumn | undefined {
    const found = this.column(t, name);
    if (!found) {
      const names = t.columns.map((c) => c.name);
      const ignored = t.ignored.some((c) => c.name === name);
      this.ctx.error(
        "unknown-column",
        ignored
          ? `${what} names "${name}", an @ignore column of table "${t.name}": resc never reads it`
          : withHint(`${what} names "${name}", which is not a column of table "${t.name}"`, name, names),
        span,
      );
      return undefined;
    }
    if (found.column.hidden && !hiddenAllowed) {
      this.ctx.error(
        "access-hidden-column",
        `${what} names "${qualified(t, name)}", which is @hidden: a rule's refusals and its 404s would reveal it; drop @hidden and hide it per role with hide […]`,
        span,
      );
      return undefined;
    }
    return found;
  }

  private claim(name: string, span: Span): KnownClaim | undefined {
    const c = this.claims.get(name);
    if (!c) {
      const names = [...this.claims.keys()];
      this.ctx.error(
        "unknown-claim",
        withHint(`claim "${name}" is not declared in the auth block (claims: ${names.join(", ")})`, name, names),
        span,
      );
    }
    return c;
  }

  /** Whether a literal is a value of `col`'s (element) type; the reason it is not otherwise. */
  private literalProblem(col: RuleColumn, value: string | number | boolean | null): string | undefined {
    const d = col.descriptor;
    const kind = d.kind;
    if (value === null) return "null is no value: write is null or is not null";
    switch (kind) {
      case "boolean":
        return typeof value === "boolean" ? undefined : "it takes true or false";
      case "integer":
      case "bigint":
        return typeof value === "number" && Number.isInteger(value) ? undefined : "it takes a whole number";
      case "numeric":
      case "float":
        return typeof value === "number" ? undefined : "it takes a number";
      case "enum":
        return typeof value === "string" && d.enumValues!.includes(value)
          ? undefined
          : withHint(
              `it takes one of ${d.enumValues!.join(", ")}`,
              typeof value === "string" ? value : "",
              d.enumValues!,
            );
      case "uuid":
        return typeof value === "string" && UUID.test(value) ? undefined : "it takes a UUID string";
      default:
        return typeof value === "string" ? undefined : "it takes a string";
    }
  }

  /**
   * A bare name (`status = open`) is a value of an enum column; on any other
   * column it is `invalid-rule-operand`, since it reads as a column or a
   * claim a rule cannot compare with. Returns the value it stands for.
   */
  private word(col: RuleColumn, w: Extract<RuleOperandDecl, { kind: "word" }>): string | undefined {
    if (col.descriptor.kind === "enum") return w.word;
    this.ctx.error(
      "invalid-rule-operand",
      `"${w.word}" is a bare name, which only an enum column takes (as one of its values), and "${qualified(col.table, col.column.name)}" is ${describeType(col.column.type)}: write claim.${w.word} for a claim, "${w.word}" for a string`,
      w.span,
    );
    return undefined;
  }

  private valueProblem(col: RuleColumn, shape: string, right: RuleOperandDecl, written: string): void {
    const name = qualified(col.table, col.column.name);
    const type = describeType(col.column.type);
    const bad = (message: string, span: Span): void =>
      this.ctx.error("rule-value-type", `${written} on "${name}" (${type}): ${message}`, span);
    const itemProblem = (item: RuleOperandDecl): void => {
      if (item.kind !== "literal" && item.kind !== "word") return;
      const value = item.kind === "word" ? this.word(col, item) : item.value;
      if (value === undefined) return;
      const problem = this.literalProblem(col, value);
      if (problem) bad(`${JSON.stringify(value)} is not a value of its type: ${problem}`, item.span);
    };
    if (right.kind === "claim") {
      const claim = this.claim(right.claim, right.span);
      if (!claim) return;
      const claimType = this.ctx.index.resolve(claim.type);
      const wantsList = shape === "list";
      const claimText = describeType(claim.type, claim.nullable);
      if (claimType.arrayDims > 0 !== wantsList) {
        this.ctx.error(
          "claim-type-mismatch",
          wantsList
            ? `${written} on "${name}" takes a list, but claim "${claim.name}" is one ${claimText}: declare it as a list (${typeText(claim.type)}[]) or compare with =`
            : `${written} on "${name}" takes one value, but claim "${claim.name}" is a list (${claimText}): write in claim.${claim.name}`,
          right.span,
        );
        return;
      }
      if (!claimFitsColumn(claimType, col.type)) {
        this.ctx.error(
          "claim-type-mismatch",
          `claim "${claim.name}" (${claimText}) cannot be compared with "${name}" (${type}): their types differ`,
          right.span,
        );
      }
      return;
    }
    if (right.kind === "list") {
      if (shape !== "list") {
        bad("it takes one value, not a list", right.span);
        return;
      }
      if (right.items.length === 0 && !col.descriptor.array) {
        bad("an empty list matches nothing", right.span);
        return;
      }
      for (const item of right.items) itemProblem(item);
      return;
    }
    if (right.kind !== "literal" && right.kind !== "word") return;
    if (shape === "list") {
      const item = right.kind === "word" ? right.word : JSON.stringify(right.value);
      bad(`it takes a list, like ${written} [${item}], or a list claim`, right.span);
      return;
    }
    if (right.kind === "literal" && right.value === null) {
      bad(this.nullProblem(col, written), right.span);
      return;
    }
    itemProblem(right);
  }

  /**
   * `= null` and `!= null` point at the null tests: SQL's `= NULL` is never
   * true, so taking it as written would make a rule that admits nothing
   * (docs/decisions/1367-access-rules.md).
   */
  private nullProblem(col: RuleColumn, written: string): string {
    const test = written === '"!="' ? "is not null" : "is null";
    const column = col.column.name;
    if (!col.column.nullable)
      return `null is no value, and "${column}" is not nullable: it is never null, so the comparison would always be ${test === "is null" ? "false" : "true"}`;
    if (written === '"="' || written === '"!="')
      return `null is no value (SQL's ${written.slice(1, -1)} NULL is never true): write ${column} ${test}`;
    return "null is no value: write is null or is not null";
  }

  private cmp(e: Cmp): void {
    const col = this.ruleColumn(e.left);
    if (!col) {
      // The claim is still worth checking on its own.
      if (e.right?.kind === "claim") this.claim(e.right.claim, e.right.span);
      return;
    }
    const written = WRITTEN[e.op]!;
    const allowed = operatorsFor(col.descriptor).filter(
      (o): o is Operator => o !== "neq" && !(col.descriptor.kind === "boolean" && ORDERING.includes(o as Operator)),
    );
    if (!allowed.includes(e.op)) {
      const takes = (Object.keys(WRITTEN) as Operator[]).filter((o) => allowed.includes(o)).map((o) => WRITTEN[o]!);
      const why =
        e.op === "isnull" || e.op === "notnull"
          ? "it is not nullable, so the test is always " + (e.op === "isnull" ? "false" : "true")
          : `a rule on it takes ${takes.join(", ") || "no operator"}`;
      this.ctx.error(
        "rule-operator-type",
        `"${written}" does not apply to "${qualified(col.table, col.column.name)}" (${describeType(col.column.type, col.column.nullable)}): ${why}`,
        e.opSpan,
      );
      return;
    }
    if (e.right) this.valueProblem(col, operatorValue(e.op, col.descriptor.array), e.right, `"${written}"`);
  }

  /** Walks a rule expression. */
  expr(e: RuleExprDecl): void {
    if (e.kind === "cmp") this.cmp(e);
    else if (e.kind === "not") this.expr(e.child);
    else for (const c of e.children) this.expr(c);
  }

  /** The operations a block grants, each reported when the table cannot grant it. */
  private ops(block: AccessDecl): void {
    const resource = this.table.resource!;
    const actions = (resource.actions ?? []).map((a) => a.name);
    const serves = (op: string): boolean => allOps(resource).includes(op);
    block.ops.forEach((name, i) => {
      const span = block.opSpans[i] ?? block.span;
      if (name === "all") return;
      if (name === "events") {
        if (!resource.events)
          this.ctx.error(
            "access-events-without-feed",
            `"events" is granted, but resource "${resource.path}" has no change feed: set events = true in it, or take events out`,
            span,
          );
        return;
      }
      const members = name === "reads" || name === "crud" ? ACCESS_OP_SETS[name] : [name];
      if (!ACCESS_OP_WORDS.includes(name) && !actions.includes(name)) {
        this.ctx.error(
          "unknown-access-op",
          withHint(
            `unknown operation "${name}": ops takes list, read, create, update, delete, the sets reads, crud and all, events${actions.length > 0 ? `, and the actions ${actions.join(", ")}` : ""}`,
            name,
            [...ACCESS_OP_WORDS, ...actions],
          ),
          span,
        );
        return;
      }
      const missing = members.filter((op) => !serves(op));
      if (missing.length === 0) return;
      const grants =
        name === missing[0] ? `"${name}" is an operation` : `"${name}" grants ${missing.join(" and ")}, which`;
      this.ctx.error(
        "access-op-not-served",
        `${grants} resource "${resource.path}" does not serve (ops = [${resource.ops.join(", ")}])${name === missing[0] ? "" : "; list the operations, or write all"}`,
        span,
      );
    });
  }

  private rows(block: AccessDecl, granted: readonly string[]): void {
    const actions = (this.table.resource?.actions ?? []).map((a) => a.name);
    for (const rule of block.rows) {
      (rule.ops ?? []).forEach((name, i) => {
        const span = rule.opSpans?.[i] ?? rule.span;
        if (name === "all") return;
        if (!ACCESS_OP_WORDS.includes(name) && !actions.includes(name)) {
          this.ctx.error(
            "unknown-access-op",
            withHint(`unknown operation "${name}" in rows(…)`, name, [...ACCESS_OP_WORDS, ...actions]),
            span,
          );
          return;
        }
        const members = name === "reads" || name === "crud" ? ACCESS_OP_SETS[name] : [name];
        for (const op of members) {
          if (!granted.includes(op))
            this.ctx.error(
              "rows-op-not-granted",
              `"rows(${name})" rules ${op}, which this access block does not grant (ops = [${block.ops.join(", ")}])`,
              span,
            );
        }
      });
      this.expr(rule.expr);
    }
  }

  private stamps(block: AccessDecl, granted: readonly string[]): void {
    const seen = new Set<string>();
    for (const stamp of block.stamps) {
      const what = `stamp`;
      if (seen.has(stamp.column)) {
        this.ctx.error(
          "duplicate-stamp",
          `"${stamp.column}" is already stamped by this access block`,
          stamp.columnSpan,
        );
        continue;
      }
      seen.add(stamp.column);
      const claim = this.claim(stamp.claim, stamp.claimSpan);
      const col = this.known(this.table, stamp.column, stamp.columnSpan, what);
      if (!col) continue;
      const name = qualified(this.table, stamp.column);
      if (col.column.computed !== undefined) {
        this.ctx.error(
          "stamp-computed-column",
          `"${name}" is computed: it is never written, so nothing can stamp it`,
          stamp.columnSpan,
        );
        continue;
      }
      const serial = col.type.base.kind === "builtin" && col.type.base.type.serial;
      if (col.column.default?.kind === "identity" || serial) {
        this.ctx.error(
          "stamp-generated-column",
          `"${name}" is numbered by the database (${serial ? typeText(col.column.type) : "@default(identity)"}): a stamp cannot set it`,
          stamp.columnSpan,
        );
        continue;
      }
      if (!claim) continue;
      const claimType = this.ctx.index.resolve(claim.type);
      const claimText = describeType(claim.type, claim.nullable);
      if (claimType.arrayDims > 0 !== col.type.arrayDims > 0 || !claimFitsColumn(claimType, col.type)) {
        this.ctx.error(
          "claim-type-mismatch",
          `claim "${claim.name}" (${claimText}) cannot be stored in "${name}" (${describeType(col.column.type)})`,
          stamp.claimSpan,
        );
      } else if (claim.nullable && !col.column.nullable) {
        this.ctx.error(
          "stamp-nullable-claim",
          `claim "${claim.name}" is optional (${claimText}) but "${name}" is required: a token without it could not create a row; make the claim required or the column nullable`,
          stamp.claimSpan,
        );
      }
    }
    if (block.stamps.length > 0 && !granted.includes("create")) {
      this.ctx.warning(
        "stamp-without-create",
        `this access block stamps ${block.stamps.map((s) => s.column).join(", ")} but does not grant create, the only operation stamps apply to`,
        block.stamps[0]!.span,
      );
    }
  }

  private hide(block: AccessDecl): void {
    block.hide.forEach((name, i) => {
      const span = block.hideSpans[i] ?? block.span;
      const col = this.known(this.table, name, span, "hide […]", true);
      if (!col) return;
      if (this.table.primaryKey.includes(name)) {
        this.ctx.error(
          "hide-primary-key",
          `"${qualified(this.table, name)}" is the primary key: it names every row in URLs and responses, so it cannot be hidden`,
          span,
        );
      }
      // A column both stamped and hidden (a tenant key the role never sees) is Hasura's preset left out of its
      // select permission: the server sets it, the rules judge it, the role neither sends nor reads it.
    });
  }

  /**
   * What a `check` makes of the block's `rows` rules (docs/access.md, rows(create) and check): the check replaces
   * them as the test of a written row, so a `rows(create)` beside it judges nothing (`rows-create-with-check`,
   * a warning), and a check that flatly denies a conjunct of an every-operation `rows` rule (`org = claim.org`
   * against `org != claim.org`, `is null` against `is not null`, `in` against `not in` the same) writes only
   * rows the role cannot read back (`check-contradicts-rows`, a warning). Only such literal opposites are
   * found; this is no satisfiability test.
   */
  private checkAgainstRows(block: AccessDecl): void {
    const check = block.check!;
    for (const rule of block.rows) {
      const at = (rule.ops ?? []).findIndex((op) => op === "create" || op === "crud");
      if (at < 0) continue;
      this.ctx.warning(
        "rows-create-with-check",
        `${rule.ops![at] === "crud" ? `"crud" includes create: ` : ""}a rows rule judges nothing for create while the block has a check: a create reads no row, and the check alone is what a created row must satisfy; put the condition in check`,
        rule.opSpans?.[at] ?? rule.span,
      );
    }
    const conjuncts = (e: RuleExprDecl): RuleExprDecl[] => (e.kind === "and" ? e.children.flatMap(conjuncts) : [e]);
    const key = (e: Cmp): string =>
      JSON.stringify([e.left.relation, e.left.column, e.right ? withoutSpan(e.right) : null]);
    const OPPOSITE: Partial<Record<Cmp["op"], Cmp["op"]>> = {
      eq: "ne",
      ne: "eq",
      in: "nin",
      nin: "in",
      isnull: "notnull",
      notnull: "isnull",
    };
    const everyOp = block.rows.filter((r) => r.ops === undefined || r.ops.includes("all"));
    const ruled = everyOp.flatMap((r) =>
      conjuncts(r.expr)
        .filter((c): c is Cmp => c.kind === "cmp")
        .map((c) => ({ cmp: c, line: r.span.line })),
    );
    for (const c of conjuncts(check)) {
      if (c.kind !== "cmp") continue;
      const denied = ruled.find((r) => r.cmp.op === OPPOSITE[c.op] && key(r.cmp) === key(c));
      if (!denied) continue;
      this.ctx.warning(
        "check-contradicts-rows",
        `no row satisfies both this check and the rows rule at line ${denied.line}: every row a create or update writes would be one this role cannot read`,
        c.span,
      );
    }
  }

  /** Checks one block; `granted` roles of earlier blocks of the table, by role. */
  block(block: AccessDecl, granted: Map<string, AccessDecl>, roles: readonly string[] | undefined): void {
    block.roles.forEach((role, i) => {
      const span = block.roleSpans[i] ?? block.span;
      if (roles && !roles.includes(role)) {
        this.ctx.error(
          "unknown-role",
          withHint(
            `role "${role}" is not declared in the auth block (roles: ${roles.join(", ") || "none"})`,
            role,
            roles,
          ),
          span,
        );
      }
      const first = granted.get(role);
      if (first) {
        this.ctx.error(
          "duplicate-access",
          `role "${role}" is already granted access to table "${this.table.name}" at line ${first.span.line}: one access block per role and table, so its rules cannot contradict each other`,
          span,
        );
      } else granted.set(role, block);
    });
    if (!this.table.resource) {
      this.ctx.error(
        "access-without-resource",
        `table "${this.table.name}" has no resource block: there is nothing to grant access to`,
        headerSpan(block),
      );
      return;
    }
    if (block.ops.length === 0) {
      this.ctx.warning(
        "access-without-ops",
        `this access block grants no operation: add ops = [...] (or remove the block)`,
        headerSpan(block),
      );
    }
    this.ops(block);
    const ops = grantedOps(this.table, block);
    this.rows(block, ops);
    if (block.check) {
      this.expr(block.check);
      this.checkAgainstRows(block);
      const actions = (this.table.resource.actions ?? []).map((a) => a.name);
      if (!ops.some((op) => op === "create" || op === "update" || actions.includes(op))) {
        this.ctx.warning(
          "check-without-writes",
          `check applies to the rows a create, update or action writes, and this access block grants none of them`,
          block.settingSpans["check"] ?? block.span,
        );
      }
    }
    this.stamps(block, ops);
    this.hide(block);
  }
}

/**
 * Reports, for every table's `access` blocks: `access-without-auth`,
 * `access-without-resource`, `unknown-role`, `duplicate-access`,
 * `access-without-ops` (warning), `unknown-access-op`,
 * `access-op-not-served`, `access-events-without-feed`,
 * `rows-op-not-granted`, `unknown-column`, `access-hidden-column`,
 * `unknown-relation`, `unknown-claim`, `rule-operator-type`,
 * `rule-value-type`, `claim-type-mismatch`, `check-without-writes`
 * (warning), `rows-create-with-check` (warning), `check-contradicts-rows`
 * (warning), `duplicate-stamp`, `stamp-computed-column`,
 * `stamp-generated-column`, `stamp-nullable-claim`, `stamp-without-create`
 * (warning) and `hide-primary-key`; with an `auth` block,
 * `resource-without-access` (warning) for a served table nobody may use.
 */
export function checkAccess(ctx: ValidationContext): void {
  const auth = ctx.index.schema.auth;
  const roles = auth ? declaredRoles(auth) : undefined;
  for (const table of ctx.index.schema.tables) {
    if (auth && table.resource && table.access.length === 0) {
      ctx.warning(
        "resource-without-access",
        `resource "${table.resource.path}" has no access block: with an auth block it is served to nobody (every request is a 403); grant it with access <role> { ops = [...] }`,
        table.nameSpan,
      );
    }
    if (table.access.length === 0) continue;
    if (!auth) {
      for (const block of table.access)
        ctx.error(
          "access-without-auth",
          `access blocks name roles, which only an auth block declares: add auth { roles = [${block.roles.join(", ")}] … }`,
          headerSpan(block),
        );
      continue;
    }
    const rules = new TableRules(ctx, table, auth.claims);
    const granted = new Map<string, AccessDecl>();
    for (const block of table.access) rules.block(block, granted, roles);
  }
}
