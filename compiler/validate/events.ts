/**
 * `events = true` (docs/decisions/1337-change-feed.md): the feed is a
 * list followed over time (its filters are the list's, and its `reload`
 * event tells a client to list again), so the resource must serve list.
 */
import { settingSpan, type ValidationContext } from "./context.js";

/** Reports `events-need-list`. */
export function checkEvents(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    const resource = table.resource;
    if (!resource?.events || resource.ops.includes("list")) continue;
    ctx.error(
      "events-need-list",
      `resource "${resource.path}" sets events = true but does not serve list: the change feed takes the list's filters and tells a client that cannot resume to list again; add list to ops`,
      settingSpan(resource, "events"),
    );
  }
}
