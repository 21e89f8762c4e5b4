/**
 * The `hooks.ts` that `resc init --schema` writes (docs/decisions/1242-init.md,
 * amended by 1363): `templates/init/hooks-stubbed.ts`, whose `hooks` go
 * through `stubMissingHooks`, so every hook the schema requires and nobody
 * wrote yet answers 501 naming itself and the project starts. The file's
 * opening comment lists those hooks, so the reader knows what to write.
 */
import { buildDescriptor } from "../../compiler/descriptor.js";
import type { Schema } from "../../language/ir.js";
import { missingHooks } from "../../runtime/hooks/stubs.js";

/** The template's line that stands for the list of required hooks. */
const PLACEHOLDER = " * - REQUIRED-HOOK\n";

/**
 * The module's text.
 * @param template the text of `templates/init/hooks-stubbed.ts`
 * @param module where the generated module lands, relative to the project (`generated/app`)
 * @throws Error when the template has lost its placeholder line (a packaging mistake, never the user's)
 */
export function stubbedHooksModule(template: string, schema: Schema, module: string): string {
  if (!template.includes(PLACEHOLDER)) throw new Error("templates/init/hooks-stubbed.ts has no REQUIRED-HOOK line");
  const missing = missingHooks(buildDescriptor(schema), {});
  const lines =
    missing.length > 0
      ? missing.map((m) => ` * - \`${m.hook}\`: ${m.declaration}\n`)
      : [" * - none yet; one the schema comes to require is stubbed the same way\n"];
  return template.replace(PLACEHOLDER, lines.join("")).replaceAll("./generated/app/", `./${module}/`);
}
