/**
 * The validator: every rule the spec states about a schema, each reported
 * as a located diagnostic, all of them at once; never throws on a bad
 * schema. Errors stop compilation; warnings are lint. One file per rule
 * family; this module only runs them (docs/decisions/0200-validation-diagnostics.md).
 */
import type { Diagnostic, Schema } from "../../language/ir.js";
import { SchemaIndex } from "../schema-index.js";
import { checkAccess } from "./access.js";
import { checkActions } from "./actions.js";
import { checkAuth } from "./auth.js";
import { checkEvents } from "./events.js";
import { checkArrays } from "./arrays.js";
import { checkCeilings } from "./ceilings.js";
import { checkComputed } from "./computed.js";
import { checkCreateBody } from "./create-body.js";
import { ValidationContext, type Rule } from "./context.js";
import { checkDefaults } from "./defaults.js";
import { checkGenerateBlock } from "./generate-block.js";
import { checkHidden } from "./hidden.js";
import { checkKeys } from "./keys.js";
import { checkLint } from "./lint.js";
import { checkNames } from "./names.js";
import { checkRelations } from "./relations.js";
import { checkOwnTableNames, checkReservedNames } from "./reserved-names.js";
import { checkResources } from "./resources.js";
import { checkSoftDelete } from "./soft-delete.js";
import { checkSorting } from "./sorting.js";
import { checkTypes } from "./types.js";

const RULES: Rule[] = [
  checkNames,
  checkTypes,
  checkKeys,
  checkResources,
  checkActions,
  checkAuth,
  checkAccess,
  checkEvents,
  checkGenerateBlock,
  checkCeilings,
  checkArrays,
  checkSorting,
  checkHidden,
  checkCreateBody,
  checkComputed,
  checkSoftDelete,
  checkRelations,
  checkReservedNames,
  checkOwnTableNames,
  checkDefaults,
  checkLint,
];

/**
 * Validates a schema as the parser built it. Returns every diagnostic in
 * source order; the schema is valid when none has severity `error`.
 */
export function validate(schema: Schema): Diagnostic[] {
  const ctx = new ValidationContext(new SchemaIndex(schema));
  for (const rule of RULES) rule(ctx);
  return ctx.diagnostics();
}

/** Whether a list of diagnostics contains an error (warnings do not count). */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}
