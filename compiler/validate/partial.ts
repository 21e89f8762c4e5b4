/**
 * The validator's rules over a schema that did not parse whole: the
 * declarations a syntax error touched are left out, the rest are
 * checked, so a rule violation in one table shows up next to a syntax
 * error in another instead of only after it is fixed
 * (docs/decisions/0230-rules-beside-syntax-errors.md).
 */
import type { Diagnostic, Schema, Span } from "../../language/ir.js";
import { validate } from "./index.js";

/**
 * Rules about names another declaration should provide: with part of the
 * file unparsed, such a name may be missing only because its declaration
 * is, so these wait until the syntax errors are fixed.
 */
const CROSS_DECLARATION = new Set([
  "unknown-type",
  "unknown-ref-target",
  "unknown-ref-column",
  "unknown-security-scheme",
  "ref-type-mismatch",
  "ref-target-not-unique",
  "ref-target-computed",
  "ref-target-column-required",
  "inverse-without-ref",
  "duplicate-resource-path",
  "duplicate-name",
  "duplicate-database-name",
]);

function touches(span: Span, errors: readonly Diagnostic[]): boolean {
  return errors.some((e) => e.span.offset >= span.offset && e.span.offset <= span.offset + span.length);
}

/**
 * Runs the rules over the declarations of `schema` that no syntax error
 * touches. The api, generate and auth blocks, enums, domains and tables
 * each count as one declaration.
 *
 * @param syntaxErrors the parser's error diagnostics (at least one)
 * @returns the validator's diagnostics about the intact declarations, minus
 *   the rules that look across declarations
 */
export function validateIntact(schema: Schema, syntaxErrors: readonly Diagnostic[]): Diagnostic[] {
  const intact: Schema = {
    file: schema.file,
    enums: schema.enums.filter((e) => !touches(e.span, syntaxErrors)),
    domains: schema.domains.filter((d) => !touches(d.span, syntaxErrors)),
    tables: schema.tables.filter((t) => !touches(t.span, syntaxErrors)),
  };
  if (schema.api && !touches(schema.api.span, syntaxErrors)) intact.api = schema.api;
  if (schema.generate && !touches(schema.generate.span, syntaxErrors)) intact.generate = schema.generate;
  // Access blocks name the auth block's roles and claims (docs/decisions/1367-access-rules.md): with an intact auth
  // block they are checked against it; with a broken one, not at all, as a name of another declaration waits.
  if (schema.auth && !touches(schema.auth.span, syntaxErrors)) intact.auth = schema.auth;
  else if (schema.auth) intact.tables = intact.tables.map((t) => ({ ...t, access: [] }));
  return validate(intact).filter((d) => !CROSS_DECLARATION.has(d.code));
}
