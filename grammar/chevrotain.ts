/**
 * Chevrotain's runtime values, loaded from the single-file bundle the
 * package publishes (`lib/chevrotain.mjs`) rather than from its entry
 * point, which pulls in some three hundred modules: 30 ms instead of 300 ms
 * at every `resc` start (docs/decisions/1322-command-start-up.md).
 * The bundle is the same release built into one file; when a future
 * release stops shipping it, the entry point is used.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";

type Chevrotain = typeof import("chevrotain");

async function load(): Promise<Chevrotain> {
  // The package's exports name only its entry point, so the bundle is looked up where Node looks for packages.
  for (const dir of createRequire(import.meta.url).resolve.paths("chevrotain") ?? []) {
    const bundle = path.join(dir, "chevrotain", "lib", "chevrotain.mjs");
    if (existsSync(bundle)) return (await import(pathToFileURL(bundle).href)) as Chevrotain;
  }
  return import("chevrotain");
}

const chevrotain = await load();

/** Re-exported as the grammar uses them; types still come from `chevrotain` itself. */
export const { CstParser, Lexer, createToken, createTokenInstance, tokenMatcher } = chevrotain;
