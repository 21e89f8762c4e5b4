/**
 * Hooks: the application's code around every request (see resc's docs/hooks.md).
 * Add BeforeQuery hooks to confine reads (a `@@scoped` table needs one before
 * it is served), BeforeCreate to stamp read-only columns, ValidateCreate for
 * rules of your own, AfterCommit to follow writes.
 */
import type { Hooks } from "resc/runtime";

export const hooks: Hooks = {};
