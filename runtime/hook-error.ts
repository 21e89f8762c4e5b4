/**
 * The error of a hook the service cannot use as registered: a server
 * misconfiguration, answered over HTTP with a 500 problem document of type
 * `/problems/hook-misconfigured` (docs/decisions/0600-hooks.md).
 */

import { brandClass } from "./brand.js";

/** Which hook a {@link HookError} is about. */
export type HookKind = "beforeQuery" | "beforeCreate" | "validateCreate" | "afterCommit";

/**
 * A hook that cannot be applied. `message` names the table, the relation
 * (for an expansion) and why, and never holds SQL text or a column name, so
 * it can be served as the detail of the 500 problem document.
 */
export class HookError extends Error {
  /** The table the hook is registered on. */
  readonly table: string;
  readonly hook: HookKind;
  /** The relation being expanded when the hook's predicate could not be requalified onto it. */
  readonly relation?: string;

  /**
   * @param hook the kind of hook at fault
   * @param table the table it is registered on
   * @param reason why it cannot be used, a sentence without SQL text or column names
   * @param relation the expansion being compiled, when there is one
   */
  constructor(hook: HookKind, table: string, reason: string, relation?: string) {
    const where = relation === undefined ? "" : ` in the expansion "${relation}"`;
    super(`The ${hook} hook of table "${table}" cannot be applied${where}: ${reason}.`);
    this.name = "HookError";
    this.hook = hook;
    this.table = table;
    if (relation !== undefined) this.relation = relation;
  }
}

brandClass(HookError, "resc.HookError");
