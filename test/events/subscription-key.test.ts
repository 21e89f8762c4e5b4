/**
 * The hub's grouping of subscriptions (runtime/events/match.ts
 * `subscriptionKey`, docs/decisions/1358-values-through-codecs.md): keyed by
 * the compiled condition and its encoded bind parameters, so a predicate
 * holding decoded values (a `bigint`, a `Date`) keys without throwing, and
 * equal conditions share one verdict however their values were spelled.
 */
import { describe, expect, it } from "vitest";
import { subscriptionKey } from "../../runtime/events/match.js";
import { and, cmp, or } from "../../runtime/predicate.js";
import { compileText } from "../support/service.js";

const { service } = compileText(`
table tasks {
  id      bigint      @primary_key @default(identity)
  list_id bigint      @filterable
  due_at  timestamptz @filterable
  title   text        @filterable
  resource "/tasks" { ops = [list], events = true }
}
`);
const table = service.tables[0]!;

describe("subscriptionKey", () => {
  it("keys predicates holding bigint values (eq, in, gte, inside or) without throwing", () => {
    for (const where of [
      cmp("list_id", "eq", 1n),
      cmp("list_id", "in", [1n, 2n]),
      cmp("list_id", "gte", 9007199254740993n),
      or(cmp("list_id", "eq", 1n), cmp("title", "eq", "x")),
    ])
      expect(() => subscriptionKey(table, { where, scope: and(cmp("list_id", "ne", 3n)) })).not.toThrow();
  });

  it("gives equal conditions one key and different values different keys", () => {
    const one = subscriptionKey(table, { where: cmp("list_id", "eq", 1n) });
    expect(subscriptionKey(table, { where: cmp("list_id", "eq", 1) })).toBe(one);
    expect(subscriptionKey(table, { where: cmp("list_id", "eq", 2n) })).not.toBe(one);
    const at = "2024-01-02T03:04:05.000Z";
    expect(subscriptionKey(table, { where: cmp("due_at", "eq", new Date(at)) })).toBe(
      subscriptionKey(table, { where: cmp("due_at", "eq", at) }),
    );
    expect(subscriptionKey(table, { where: cmp("list_id", "eq", 1n), select: ["id"] })).not.toBe(one);
  });
});
