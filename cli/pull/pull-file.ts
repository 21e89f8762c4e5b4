/**
 * The file `resc pull` writes: the catalog rendered, formatted, and
 * compiled, and rendered again without any table the compiler refused
 * (named in a `// left out:` comment with the compiler's reason), until it
 * compiles. A pulled file is therefore always a valid file, whatever the
 * database holds (docs/decisions/1200-pull.md).
 */
import { compileSource } from "../../compiler/compile.js";
import type { Diagnostic } from "../../language/ir.js";
import { formatSource } from "../../grammar/format/index.js";
import { renderCatalog, type Catalog, type Extras } from "../../catalog/index.js";

/** A pulled file, or the text that did not parse (a fault of pull itself). */
export type PulledFile =
  | { ok: true; text: string; leftOut: string[]; warnings: string[] }
  | { ok: false; text: string; diagnostics: Diagnostic[] };

/** The table declaration holding `offset` in `text`, by the last `table NAME {` before it. */
function tableAt(text: string, offset: number): string | undefined {
  let found: string | undefined;
  for (const m of text.slice(0, offset).matchAll(/^table ([a-z_][a-z0-9_]*) \{/gm)) found = m[1];
  return found;
}

/**
 * Renders `catalog` as a `.resource` file named `file` that compiles.
 * @returns `ok: false` only when the rendered text does not parse, or an error lies outside any table
 */
export function pulledFile(catalog: Catalog, extras: Extras, file: string): PulledFile {
  const exclude = new Map(extras.exclude ?? []);
  for (;;) {
    const rendered = renderCatalog(catalog, { ...extras, exclude });
    const formatted = formatSource(rendered.text, file);
    if (!formatted.ok) return { ok: false, text: rendered.text, diagnostics: formatted.diagnostics };
    const errors = compileSource(formatted.text, file).diagnostics.filter((d) => d.severity === "error");
    if (errors.length === 0)
      return { ok: true, text: formatted.text, leftOut: rendered.leftOut, warnings: rendered.warnings };
    const before = exclude.size;
    for (const e of errors) {
      const table = tableAt(formatted.text, e.span.offset);
      if (table !== undefined && !exclude.has(table))
        exclude.set(table, `the language refuses its declaration: ${e.message}`);
    }
    if (exclude.size === before) return { ok: false, text: formatted.text, diagnostics: errors };
  }
}
