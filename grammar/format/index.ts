/**
 * The `.resource` formatter: one canonical layout for any file that parses
 * (docs/decisions/1100-formatter-layout.md). Used by `resc fmt` and by the
 * language server's formatting request.
 *
 * Guarantees, checked on every run before any text is returned: the output
 * parses to the same schema as the input (spans aside) and keeps every
 * comment. A file with a syntax error is refused with its diagnostics,
 * never half-formatted.
 */
import type { Diagnostic } from "../../language/ir.js";
import { lex } from "../lexer.js";
import { parse } from "../parse.js";
import { parser } from "../parser.js";
import { SourceMap } from "../span.js";
import { syntaxDiagnostic } from "../syntax-errors.js";
import { Printer } from "./printer.js";
import { printSchema } from "./print-decls.js";
import { Trivia } from "./trivia.js";
import { sameSchema } from "./same-schema.js";

/** The outcome of formatting one text. */
export type FormatResult =
  /** `text` is the formatted file; `changed` when it differs from the input. */
  | { ok: true; text: string; changed: boolean }
  /** The input does not parse: the lexical and syntax diagnostics that say why (with spans into the input). */
  | { ok: false; diagnostics: Diagnostic[] };

/** Thrown when the formatter would lose a comment or change the schema: a bug in the formatter, never in the input. */
export class FormatterBug extends Error {
  override name = "FormatterBug";
}

/**
 * Formats the text of one `.resource` file (`file` is only used in
 * diagnostics). Line breaks in the output are `\n`; a non-empty output ends
 * with one. Returns the syntax diagnostics instead when the text does not
 * parse. Throws `FormatterBug` if the result would not be equivalent to the
 * input.
 */
export function formatSource(text: string, file = "<input>"): FormatResult {
  const source = new SourceMap(file, text);
  const lexed = lex(text, source);
  parser.input = lexed.tokens;
  const root = parser.schema();
  const errors = parser.errors.map((e) => syntaxDiagnostic(e, { source, tokens: lexed.tokens }));
  if (lexed.diagnostics.length > 0 || errors.length > 0) {
    const diagnostics = [...lexed.diagnostics, ...errors].sort((a, b) => a.span.offset - b.span.offset);
    return { ok: false, diagnostics };
  }
  const printer = new Printer(text, lexed.tokens);
  const out = printSchema(printer, root);
  const lost = printer.trivia.unplaced();
  if (lost.length > 0) throw new FormatterBug(`the formatter did not place the comment "${lost[0]!.text}"`);
  check(text, out, file);
  return { ok: true, text: out, changed: out !== text };
}

/** The safety net: same schema, same comments. */
function check(input: string, output: string, file: string): void {
  const before = parse(input, file);
  const after = parse(output, file);
  if (
    after.diagnostics.some((d) => d.severity === "error") &&
    !before.diagnostics.some((d) => d.severity === "error")
  ) {
    throw new FormatterBug(`the formatted text does not parse: ${after.diagnostics[0]!.message}`);
  }
  if (!sameSchema(before.schema, after.schema)) throw new FormatterBug("the formatted text means a different schema");
  const comments = (t: string) => {
    const l = lex(t, new SourceMap(file, t));
    return new Trivia(t, l.tokens)
      .all()
      .map((c) => c.text)
      .sort();
  };
  const a = comments(input);
  const b = comments(output);
  if (a.length !== b.length || a.some((c, i) => c !== b[i]))
    throw new FormatterBug("the formatted text lost or changed a comment");
}
