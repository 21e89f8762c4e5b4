/**
 * `parse`: text → schema + diagnostics, never throwing (docs/language.md).
 *
 * Lexing, parsing with recovery, and IR building each add diagnostics. When
 * the parser meets text that starts no declaration it stops; we report it
 * once, skip to the next declaration keyword and parse again from there, so
 * one stray token does not hide the rest of the file.
 */
import type { CstNode, IToken } from "chevrotain";
import type { Diagnostic, ParseResult, Schema } from "../language/ir.js";
import { lex } from "./lexer.js";
import { closeDanglingParens } from "./recover.js";
import { parser } from "./parser.js";
import { SourceMap } from "./span.js";
import { syntaxDiagnostic } from "./syntax-errors.js";
import { declarationKeywords } from "./tokens/keywords.js";
import { UnterminatedString } from "./tokens/literals.js";
import { LCurly, RCurly } from "./tokens/punctuation.js";
import { SchemaBuilder } from "./to-ir.js";
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
  let index: Map<IToken, number> | undefined;
  let start = 0;
  while (start < tokens.length) {
    parser.input = tokens.slice(start);
    roots.push(parser.schema());
    let stop = tokens.length;
    for (const e of parser.errors) {
      diagnostics.push(syntaxDiagnostic(e, { source, tokens }));
      if (e.name === "NotAllInputParsedException") {
        index ??= new Map(tokens.map((t, i) => [t, i]));
        stop = index.get(e.token) ?? tokens.length;
      }
    }
    if (stop >= tokens.length) break;
    let next = stop + 1;
    while (next < tokens.length && !declarationKeywords.includes(tokens[next]!.tokenType)) next++;
    start = next;
  }
  const echoes = afterUnterminated(tokens);
  return { roots, diagnostics: diagnostics.filter((d) => !(ECHOES.has(d.code) && echoes.has(d.span.offset))) };
}

/**
 * Splits the tokens before each declaration keyword that stands outside
 * every `{…}`: one slice per top-level declaration (the `api` block with
 * all its resources is one).
 */
export function declarationSlices(tokens: IToken[]): IToken[][] {
  const out: IToken[][] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < tokens.length; i++) {
    const type = tokens[i]!.tokenType;
    if (type === LCurly) depth++;
    else if (type === RCurly) depth--;
    else if (depth === 0 && i > start && declarationKeywords.includes(type)) {
      out.push(tokens.slice(start, i));
      start = i;
    }
  }
  if (start < tokens.length) out.push(tokens.slice(start));
  return out;
}

/**
 * Parses and reads one declaration at a time, so each CST is garbage as soon
 * as its IR is built: on a schema of 1,000 tables this halves the memory
 * the parse holds and a third of its time, most of it garbage collection
 * (bench/COMPILER.md). Gives up (nothing returned) at the first syntax error: the
 * whole-file parse then runs, whose recovery and messages see across
 * declarations. Without errors the two build the same schema and
 * diagnostics (test/grammar/by-declaration.test.ts).
 */
function parseByDeclaration(
  tokens: IToken[],
  ctx: Ctx,
  file: string,
): { schema: Schema; diagnostics: Diagnostic[] } | undefined {
  const builder = new SchemaBuilder(file, ctx);
  for (const slice of declarationSlices(tokens)) {
    parser.input = slice;
    const root = parser.schema();
    if (parser.errors.length > 0) return undefined;
    builder.add(root);
  }
  return builder.finish();
}

/** Keeps the first diagnostic per position and code: recovery can report the same spot twice. */
export function dedupe(ds: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return ds.filter((d) => {
    const key = `${d.span.offset}:${d.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Orders diagnostics by position (a stable sort keeps the order found at one position). */
export const byOffset = (a: Diagnostic, b: Diagnostic): number => a.span.offset - b.span.offset;

/**
 * Parses the text of one `.resource` file. `file` is copied into every span.
 *
 * Never throws: returns the schema built as far as possible and every
 * lexical, syntax and IR-building diagnostic, sorted by position. An
 * internal failure (a bug) becomes one `internal-error` diagnostic.
 * `wholeFileOnly` skips the declaration-by-declaration fast path; tests
 * use it to check that both paths agree.
 */
export function parse(text: string, file: string, wholeFileOnly = false): ParseResult {
  const source = new SourceMap(file, text);
  try {
    const lexed = lex(text, source);
    const closed = closeDanglingParens(lexed.tokens, source);
    const docs = new DocIndex(lexed.tokens, lexed.docComments);
    const clean = lexed.diagnostics.length === 0 && closed.diagnostics.length === 0;
    const quick = clean && !wholeFileOnly ? parseByDeclaration(closed.tokens, new Ctx(source, docs), file) : undefined;
    if (quick) return { schema: quick.schema, diagnostics: dedupe(quick.diagnostics).sort(byOffset) };
    const parsed = parseTokens(closed.tokens, source);
    const builder = new SchemaBuilder(file, new Ctx(source, docs));
    for (const root of parsed.roots) builder.add(root);
    const built = builder.finish();
    const diagnostics = dedupe([
      ...lexed.diagnostics,
      ...closed.diagnostics,
      ...parsed.diagnostics,
      ...built.diagnostics,
    ]).sort(byOffset);
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
