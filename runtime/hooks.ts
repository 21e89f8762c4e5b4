/**
 * In-process hooks (spec: Events): BeforeQuery confines reads, BeforeCreate
 * stamps read-only columns, AfterCommit follows a committed write. Payloads
 * are ours to define (the spec leaves them open); see docs/http.md.
 */
import type { Context } from "hono";
import type { Predicate, ScalarValue, JsonValue } from "./predicate.js";

/** The operation a hook is called for. `expand` is a read of a joined table. */
export type HookOperation = "list" | "read" | "create" | "update" | "delete" | "expand";

/** What every hook receives: the table, the operation and, over HTTP, the Hono request context. */
export interface HookContext {
  table: string;
  operation: HookOperation;
  /** The Hono context of the request; absent for in-process queries. */
  http?: Context;
}

/** A row's writable values as decoded from a body, by column name. */
export type RowValues = Record<string, ScalarValue | ScalarValue[] | JsonValue | null>;

/**
 * Adds a predicate to every read of its table (list, read, update and delete
 * targets, and expansions onto it). Returning undefined adds nothing.
 */
export type BeforeQueryHook = (ctx: HookContext) => Predicate | undefined | Promise<Predicate | undefined>;

/** Returns the values to insert, typically stamping read-only columns (a tenant id). */
export type BeforeCreateHook = (ctx: HookContext, values: RowValues) => RowValues | Promise<RowValues>;

/** A committed write: the operation, the table and the written row (JSON), or the key for a delete. */
export interface CommitEvent {
  table: string;
  operation: "create" | "update" | "delete";
  row?: Record<string, unknown>;
  key: ScalarValue;
}

/** Runs after a write's transaction commits; its failure is logged, never turned into a failed response. */
export type AfterCommitHook = (ctx: HookContext, event: CommitEvent) => void | Promise<void>;

/** Hooks by table name. */
export interface Hooks {
  beforeQuery?: Record<string, BeforeQueryHook>;
  beforeCreate?: Record<string, BeforeCreateHook>;
  afterCommit?: Record<string, AfterCommitHook>;
}
