/**
 * The cache of texts built from descriptors (decision 0802) keeps at most
 * its capacity of keys per owner and builds the rest on every call, which
 * is what bounds a bulk create's cached statement texts (decision 1355).
 */
import { describe, expect, it } from "vitest";
import { MAX_CACHED_PER_OBJECT, SchemaCache } from "../../runtime/sql/schema-cache.js";

describe("SchemaCache", () => {
  it("keeps the first `capacity` keys per owner and builds any other key each time", () => {
    const cache = new SchemaCache<object, string>(2);
    const owner = {};
    let builds = 0;
    const get = (key: string): string => cache.get(owner, key, () => `${key}#${++builds}`);
    expect([get("a"), get("b"), get("a"), get("b")]).toEqual(["a#1", "b#2", "a#1", "b#2"]);
    expect([get("c"), get("c")]).toEqual(["c#3", "c#4"]);
    // Another owner has a capacity of its own.
    expect(cache.get({}, "c", () => "other")).toBe("other");
  });

  it("keeps MAX_CACHED_PER_OBJECT keys when no capacity is given", () => {
    const cache = new SchemaCache<object, number>();
    const owner = {};
    let builds = 0;
    for (let i = 0; i <= MAX_CACHED_PER_OBJECT; i++) cache.get(owner, String(i), () => ++builds);
    expect(cache.get(owner, "0", () => -1)).toBe(1);
    expect(cache.get(owner, String(MAX_CACHED_PER_OBJECT - 1), () => -1)).toBe(MAX_CACHED_PER_OBJECT);
    expect(cache.get(owner, String(MAX_CACHED_PER_OBJECT), () => -1)).toBe(-1);
  });
});
