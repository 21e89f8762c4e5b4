/**
 * The tracker's hooks as a `resc dev --hooks` module
 * (docs/decisions/0603-dev-hooks-module.md), so `resc dev spec.resource`
 * serves the reference schema without the app: the declared actions of
 * tasks, and nothing that confines, since spec.resource's access blocks do
 * (docs/decisions/0702-tracker-tenancy.md). The app adds its audit hooks
 * (`app.ts`).
 */
import type { Hooks } from "resc/runtime";
import { trackerActions } from "./actions.js";

/** The hooks `resc dev` mounts spec.resource with: the implementations of `complete` and `reopen`. */
export const hooks: Hooks = { actions: trackerActions };
