/**
 * The `.resource` language for shiki (Markdown code blocks fenced
 * ```resource), built from the same TextMate grammar as the editors use
 * (build.ts), so the docs and the editor colour a schema alike.
 */
import type { LanguageRegistration } from "shiki";
import { resourceGrammar } from "./build.js";

/** A shiki language registration named `resource`. */
export function resourceLanguage(): LanguageRegistration {
  const { $schema: _schema, ...grammar } = resourceGrammar();
  return {
    ...grammar,
    name: "resource",
    displayName: "Resource",
    aliases: ["resc"],
  } as unknown as LanguageRegistration;
}
