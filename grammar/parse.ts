/**
 * `parse`: text → schema + diagnostics, never throwing (docs/language.md).
 *
 * Lexing, parsing with recovery, and IR building each add diagnostics. When
 * the parser meets text that starts no declaration it stops; we report it
 * once, skip to the next declaration keyword and parse again from there, so
 * one stray token does not hide the rest of the file.
 */
import type { CstNode, IToken } from "chevrotain";
import type { Diagnostic, ParseResult } from "../compiler/ir.js";
import { lex } from "./lexer.js";
import { closeDanglingParens } from "./recover.js";
import { parser } from "./parser.js";
import { SourceMap } from "./span.js";
import { syntaxDiagnostic } from "./syntax-errors.js";
import { declarationKeywords } from "./tokens/keywords.js";
import { UnterminatedString } from "./tokens/literals.js";
import { buildSchema } from "./to-ir.js";
import { Ctx, DocIndex } from "./to-ir/context.js";

/**
 * Offsets of the tokens right after a string with no closing quote. The
 * `)` or `]` the string swallowed is then reported missing there, which
 * only repeats the `unterminated-string` diagnostic, so those are dropped.
 */
function afterUnterminated(tokens: IToken[]): Set<number> {
  const out = new Set<number>();
  tokens.forEach((t, i) => {
    const next = tokens[i + 1];
    if (t.tokenType === UnterminatedString && next) out.add(next.startOffset);
  });
  return out;
}

const ECHOES = new Set(["missing-paren", "missing-bracket"]);

function parseTokens(tokens: IToken[], source: SourceMap): { roots: CstNode[]; diagnostics: Diagnostic[] } {
  const roots: CstNode[] = [];
  const diagnostics: Diagnostic[] = [];
  const index = new Map(tokens.map((t, i) => [t, i]));
  let start = 0;
  while (start < tokens.length) {
    parser.input = tokens.slice(start);
    roots.push(parser.schema());
    let stop = tokens.length;
    for (const e of parser.errors) {
      diagnostics.push(syntaxDiagnostic(e, { source, tokens }));
      if (e.name === "NotAllInputParsedException") stop = index.get(e.token) ?? tokens.length;
    }
    if (stop >= tokens.length) break;
    let next = stop + 1;
    while (next < tokens.length && !declarationKeywords.includes(tokens[next]!.tokenType)) next++;
    start = next;
  }
  const echoes = afterUnterminated(tokens);
  return { roots, diagnostics: diagnostics.filter((d) => !(ECHOES.has(d.code) && echoes.has(d.span.offset))) };
}

/** Keeps the first diagnostic per position and code: recovery can report the same spot twice. */
function dedupe(ds: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return ds.filter((d) => {
    const key = `${d.span.offset}:${d.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Parses the text of one `.resource` file. `file` is copied into every span.
 *
 * Never throws: returns the schema built as far as possible and every
 * lexical, syntax and IR-building diagnostic, sorted by position. An
 * internal failure (a bug) becomes one `internal-error` diagnostic.
 */
export function parse(text: string, file: string): ParseResult {
  const source = new SourceMap(file, text);
  try {
    const lexed = lex(text, source);
    const closed = closeDanglingParens(lexed.tokens, source);
    const parsed = parseTokens(closed.tokens, source);
    const ctx = new Ctx(source, new DocIndex(lexed.tokens, lexed.docComments));
    const built = buildSchema(parsed.roots, file, ctx);
    const diagnostics = dedupe([
      ...lexed.diagnostics,
      ...closed.diagnostics,
      ...parsed.diagnostics,
      ...built.diagnostics,
    ]).sort((a, b) => a.span.offset - b.span.offset);
    return { schema: built.schema, diagnostics };
  } catch (err) {
    return {
      schema: { file, enums: [], domains: [], tables: [] },
      diagnostics: [
        {
          severity: "error",
          code: "internal-error",
          message: `The parser failed unexpectedly (${err instanceof Error ? err.message : String(err)}); please report this with the file`,
          span: source.span(0, 0),
        },
      ],
    };
  }
}
