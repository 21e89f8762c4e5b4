/**
 * Hooks: the application's code around every request (see resc's docs/hooks.md).
 * This one refuses a note without a title; add BeforeQuery hooks to confine
 * reads, BeforeCreate to stamp read-only columns, AfterCommit to follow writes.
 */
import type { Hooks, WebhookSubscription } from "resc/runtime";

export const hooks: Hooks = {
  validateCreate: {
    notes: (_ctx, values) =>
      typeof values.title === "string" && values.title.trim() === ""
        ? [{ location: "body.title", detail: "a note needs a title" }]
        : [],
  },
};

/**
 * Webhook subscriptions (resc's docs/http.md, "Webhooks"): `app.ts` delivers each, signed and retried,
 * e.g. `{ name: "notes", table: "notes", url: process.env.NOTES_WEBHOOK_URL!, secret: process.env.NOTES_WEBHOOK_SECRET! }`
 * (the table's resource declares `events = true`).
 */
export const webhooks: WebhookSubscription[] = [];
