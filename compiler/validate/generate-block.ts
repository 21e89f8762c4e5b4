/**
 * The `generate` block (spec: Generator configuration): the package is one
 * directory name under the output root, so generated files can never be
 * written outside it.
 */
import type { ValidationContext } from "./context.js";

/** A single path segment: letters, digits, `_`, `-`, `.`, not starting with a dot. */
const PACKAGE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** Reports `invalid-package`. */
export function checkGenerateBlock(ctx: ValidationContext): void {
  const generate = ctx.index.schema.generate;
  if (generate?.package !== undefined && !PACKAGE.test(generate.package)) {
    ctx.error(
      "invalid-package",
      `package "${generate.package}" must be one directory name (letters, digits, "_", "-", ".")`,
      generate.span,
    );
  }
}
