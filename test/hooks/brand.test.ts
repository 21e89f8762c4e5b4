/**
 * `instanceof ProblemError` holds across copies of the runtime (runtime/brand.ts,
 * decision 1325): the bundled `resc` command and a hooks module importing
 * `resc/runtime` each have their own class. A copy is made here by loading
 * the compiled module and the source module side by side.
 */
import { describe, expect, it } from "vitest";
import { brandClass } from "../../runtime/brand.js";
import { HookError } from "../../runtime/hook-error.js";
import { ProblemError } from "../../runtime/problem.js";

const compiled = (await import(new URL("../../dist/runtime/index.js", import.meta.url).href)) as {
  ProblemError: typeof ProblemError;
};

describe("branded classes", () => {
  it("recognise an instance of another copy of the runtime", () => {
    expect(compiled.ProblemError).not.toBe(ProblemError);
    const foreign = new compiled.ProblemError(403, "forbidden", "Not yours.");
    expect(foreign instanceof ProblemError).toBe(true);
    expect(new ProblemError(400, "invalid-query", "x") instanceof compiled.ProblemError).toBe(true);
  });

  it("refuse what is not one", () => {
    expect(new Error("x") instanceof ProblemError).toBe(false);
    expect({ status: 400, kind: "x" } instanceof ProblemError).toBe(false);
    const nothing = null as object | null;
    expect(nothing instanceof ProblemError).toBe(false);
    expect(new HookError("beforeQuery", "t", "why") instanceof ProblemError).toBe(false);
    expect(new HookError("beforeQuery", "t", "why") instanceof HookError).toBe(true);
  });

  it("keep the prototype check for a subclass", () => {
    class Base extends Error {}
    class Sub extends Base {}
    brandClass(Base, "resc.test.Base");
    expect(new Sub() instanceof Base).toBe(true);
    expect(new Base() instanceof Sub).toBe(false);
    expect(new Sub() instanceof Sub).toBe(true);
  });
});
