/**
 * `instanceof` across copies of the runtime (decision 1325). The `resc`
 * command is bundled, so it carries its own copy of the runtime, while a
 * hooks or middleware module it loads imports `resc/runtime` from
 * node_modules: two `ProblemError` classes in one process. A branded class
 * answers `instanceof` for an instance of any copy, recognised by a
 * registry symbol (`Symbol.for`) on its prototype, the same in every copy.
 */

/**
 * Makes `value instanceof cls` true for instances of every copy of `cls`
 * that was branded with the same `key`. Subclasses keep the ordinary
 * prototype-chain check.
 *
 * @param cls the class to brand (its prototype gets a non-enumerable symbol)
 * @param key the registry key, e.g. `resc.ProblemError`; one per class, stable across releases
 */
export function brandClass(cls: abstract new (...args: never[]) => object, key: string): void {
  const brand = Symbol.for(key);
  Object.defineProperty(cls.prototype, brand, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      if (this !== cls) return Function.prototype[Symbol.hasInstance].call(this, value);
      return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
    },
  });
}
