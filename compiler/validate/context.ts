/**
 * What every validation rule receives: name lookups over the schema and a
 * place to report diagnostics. Rules never throw on a bad schema; they
 * report and move on, so one run lists every problem (spec: Column
 * capabilities, "schema validation reports all three").
 */
import { didYouMean } from "../../language/suggest.js";
import type { ColumnDecl, Diagnostic, ResourceDecl, Severity, Span, TableDecl, TypeRef } from "../../language/ir.js";
import { SchemaIndex } from "../schema-index.js";

/** Collects diagnostics for one validation run. */
export class ValidationContext {
  readonly index: SchemaIndex;
  private readonly found: Diagnostic[] = [];

  constructor(index: SchemaIndex) {
    this.index = index;
  }

  /** Reports an error: the schema does not compile. */
  error(code: string, message: string, span: Span): void {
    this.report("error", code, message, span);
  }

  /** Reports a lint warning: the schema compiles, but something is likely wrong. */
  warning(code: string, message: string, span: Span): void {
    this.report("warning", code, message, span);
  }

  /** Messages read as sentences, like the parser's: the first letter is upper case. */
  private report(severity: Severity, code: string, message: string, span: Span): void {
    this.found.push({ severity, code, message: message.charAt(0).toUpperCase() + message.slice(1), span });
  }

  /** Every diagnostic, in source order (then by code) so output is deterministic. */
  diagnostics(): Diagnostic[] {
    return [...this.found].sort(
      (a, b) =>
        compare(a.span.file, b.span.file) ||
        a.span.offset - b.span.offset ||
        compare(a.code, b.code) ||
        compare(a.message, b.message),
    );
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A validation rule family: reads the schema, reports through the context. */
export type Rule = (ctx: ValidationContext) => void;

/**
 * The span of attribute `@name` on a column (the first use when repeated),
 * or the whole column when the parser recorded none. `name` is written
 * without the `@`.
 */
export function attributeSpan(column: ColumnDecl, name: string): Span {
  const use = column.attributes.find((a) => a.name.replace(/^@+/, "") === name);
  return use?.span ?? column.span;
}

/** The span of a resource setting (`max_page_size`, `ops`, …), or the resource block when absent. */
export function settingSpan(resource: ResourceDecl, key: string): Span {
  return resource.settingSpans[key] ?? resource.span;
}

/** Tables that declare a resource, with it. */
export function exposedTables(tables: readonly TableDecl[]): { table: TableDecl; resource: ResourceDecl }[] {
  const out: { table: TableDecl; resource: ResourceDecl }[] = [];
  for (const table of tables) if (table.resource) out.push({ table, resource: table.resource });
  return out;
}

/** A type as written, for messages: `numeric(5,2)`, `text[]`. */
export function typeText(ref: TypeRef): string {
  const args = ref.args.length > 0 ? `(${ref.args.join(",")})` : "";
  return ref.name + args + "[]".repeat(ref.arrayDims);
}

/** `table.column`, for messages. */
export function qualified(table: TableDecl, column: string): string {
  return `${table.name}.${column}`;
}

/**
 * `message`, then `. Did you mean "x"?` when a candidate is close to `name`
 * (language/suggest.ts), so every "not declared" diagnostic offers the
 * likely intended name (docs/decisions/0130-one-slip-one-error.md).
 */
export function withHint(message: string, name: string, candidates: Iterable<string>): string {
  const hint = didYouMean(name, candidates);
  return hint === "" ? message : `${message}.${hint}`;
}
