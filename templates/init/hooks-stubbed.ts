/**
 * Hooks: the application's code around every request (see resc's docs/hooks.md).
 * Add BeforeQuery hooks to confine reads, BeforeCreate to stamp read-only
 * columns, ValidateCreate for rules of your own, AfterCommit to follow writes,
 * and the implementation of each declared action.
 *
 * The schema requires these before it is served; until you write one below,
 * its route answers 501 (`/problems/not-implemented`) naming it:
 *
 * - REQUIRED-HOOK
 */
import { stubMissingHooks, type Hooks, type WebhookSubscription } from "resc/runtime";
import { service } from "./generated/app/index.js";

/** Your hooks; `stubMissingHooks` stands in for each required one not written here yet. */
export const hooks: Hooks = stubMissingHooks(service, {});

/** Webhook subscriptions (resc's docs/http.md, "Webhooks"): `app.ts` delivers each, signed and retried. */
export const webhooks: WebhookSubscription[] = [];
