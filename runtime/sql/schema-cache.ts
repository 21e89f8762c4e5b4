/**
 * SQL text that depends on the descriptors only, built once and reused by
 * every request (docs/decisions/0802-schema-work-cached.md). Descriptors are
 * not changed once built, so an object (a table descriptor, a row's member
 * list) and a key fully determine the text.
 */

/** Distinct keys cached per object; beyond it (many `?select` lists, say) the text is built per request. */
export const MAX_CACHED_PER_OBJECT = 256;

/**
 * A cache from an object and a string key to a value, holding the object
 * weakly. `get(owner, key, build)` returns the cached value or builds it,
 * keeping at most `capacity` ({@link MAX_CACHED_PER_OBJECT} by default) keys
 * per owner.
 */
export class SchemaCache<O extends object, V> {
  private readonly byOwner = new WeakMap<O, Map<string, V>>();

  /** @param capacity the most keys kept per owner; lower it for large values (a bulk create's text) */
  constructor(private readonly capacity = MAX_CACHED_PER_OBJECT) {}

  /** The value for `owner` and `key`, from `build()` the first time. */
  get(owner: O, key: string, build: () => V): V {
    let byKey = this.byOwner.get(owner);
    if (!byKey) this.byOwner.set(owner, (byKey = new Map()));
    let value = byKey.get(key);
    if (value === undefined) {
      value = build();
      if (byKey.size < this.capacity) byKey.set(key, value);
    }
    return value;
  }
}

/** The cache key of an alias and an optional projection. */
export function projectionKey(alias: string, select?: readonly string[]): string {
  return select === undefined ? alias : `${alias}\u0000${select.join("\u0000")}`;
}
