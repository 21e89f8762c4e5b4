/**
 * Parsing a document again after an edit, re-reading only the declarations
 * whose text changed (bench/COMPILER.md: the language server on a 1,000-table file
 * answers in milliseconds, not in the quarter second a whole parse takes).
 *
 * Each top-level declaration is keyed by its text, from the end of the
 * declaration before it (so its doc comments count) to its last token. A
 * declaration whose key was read in the previous version is reused: as it
 * was when it stands at the same offset, moved (every span shifted by the
 * same offset and line delta) when text before it grew or shrank. One
 * whose reading reported a diagnostic is reused only in place, since a
 * message may quote a line. Everything that looks across declarations
 * (duplicates, the type check) runs again on every version through
 * {@link SchemaBuilder}. A file with a lexical or syntax error takes the
 * whole-file `parse`, whose recovery sees across declarations; otherwise the
 * result equals `parse(text, file)` (test/grammar/incremental.test.ts).
 * The text is lexed again only around the edit (grammar/relex.ts).
 */
import type { CstNode, IToken } from "chevrotain";
import type { Diagnostic, ParseResult, Span } from "../language/ir.js";
import { IncrementalLexer } from "./relex.js";
import { UnterminatedString } from "./tokens/literals.js";
import { byOffset, declarationSlices, dedupe, parse } from "./parse.js";
import { parser } from "./parser.js";
import { SourceMap } from "./span.js";
import { syntaxDiagnostic } from "./syntax-errors.js";
import { readDeclarations, SchemaBuilder, type DeclarationRead } from "./to-ir.js";
import { Ctx, DocIndex } from "./to-ir/context.js";

/** One declaration as read, where it stood when read. */
interface Kept {
  offset: number;
  line: number;
  reads: DeclarationRead[];
  diagnostics: Diagnostic[];
  /** Every span of `reads`, once each: collected at the first move, so later moves are a loop, not a walk. */
  spans?: Span[];
}

/** What {@link IncrementalParser.parse} returns: `parse`'s result plus the significant tokens. */
export interface IncrementalParse extends ParseResult {
  /**
   * The document's significant tokens, in source order (no comments or
   * whitespace). A later `parse` of the same parser may move them in place
   * (grammar/relex.ts): keep only the newest result's.
   */
  tokens: IToken[];
  /** How many declarations were read anew (the rest were kept): for tests and benchmarks. */
  reread: number;
}

function isSpan(x: object): x is Span {
  const s = x as Partial<Span>;
  return typeof s.offset === "number" && typeof s.line === "number" && typeof s.file === "string";
}

/**
 * Every span reachable from `value`, once each, into `into`. IR nodes share
 * some spans and type references, so `seen` remembers the spans already
 * taken; a shared node is walked again, which takes nothing twice.
 */
function collectSpans(value: object, into: Span[], seen: Set<Span>): Span[] {
  if (isSpan(value)) {
    if (!seen.has(value)) {
      seen.add(value);
      into.push(value);
    }
    return into;
  }
  if (Array.isArray(value)) {
    for (const v of value as unknown[]) if (typeof v === "object" && v !== null) collectSpans(v, into, seen);
    return into;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const v = record[key];
    if (typeof v === "object" && v !== null) collectSpans(v, into, seen);
  }
  return into;
}

/** Moves a kept declaration's spans, in place, to where it now stands. */
function move(k: Kept, offset: number, line: number): void {
  k.spans ??= collectSpans(k.reads, [], new Set());
  const by = offset - k.offset;
  const lines = line - k.line;
  for (const s of k.spans) {
    s.offset += by;
    s.line += lines;
    s.endLine += lines;
  }
  k.offset = offset;
  k.line = line;
}

/**
 * Parses a declaration with a syntax error together with the declaration
 * after it, which is what the whole-file parse sees of the rest of the file
 * when it reads the broken one: its messages name the next token, and its
 * recovery may stop there. The result stands for both declarations only when
 * the second one parsed whole and clean from its own first token, so the
 * whole-file parse would go on from the same state after it; otherwise
 * nothing is returned and the caller parses the whole file.
 */
function parsePairAt(
  broken: IToken[],
  after: IToken[] | undefined,
  all: IToken[],
  source: SourceMap,
  docs: DocIndex,
): { reads: DeclarationRead[]; diagnostics: Diagnostic[] } | undefined {
  parser.input = after ? [...broken, ...after] : broken;
  const root = parser.schema();
  const errors = parser.errors;
  const boundary = after?.[0]?.startOffset ?? Infinity;
  for (const e of errors) {
    if (e.name === "NotAllInputParsedException") return undefined;
    const at = e.token.startOffset;
    // An error past the next declaration's first token is an error in it, or recovery reaching into it.
    if (Number.isFinite(at) && at > boundary) return undefined;
  }
  if (after) {
    const lastOfAfter = after[after.length - 1]!;
    const starts: number[] = [];
    for (const key in root.children) {
      for (const d of root.children[key]!) {
        const loc = (d as CstNode).location;
        if (loc && loc.startOffset >= boundary) starts.push(loc.startOffset, loc.endOffset ?? NaN);
      }
    }
    const endsAt = lastOfAfter.startOffset + lastOfAfter.image.length - 1;
    if (starts.length !== 2 || starts[0] !== boundary || starts[1] !== endsAt) return undefined;
  }
  const ctx = new Ctx(source, docs);
  const diagnostics = errors.map((e) => syntaxDiagnostic(e, { source, tokens: all }));
  const reads = readDeclarations(root, ctx);
  return { reads, diagnostics: [...diagnostics, ...ctx.diagnostics] };
}

/**
 * Parses successive versions of one document, keeping each declaration's
 * reading between versions. Not shared between documents: `file` should
 * stay the same from call to call (a different one only costs the reuse).
 */
export class IncrementalParser {
  private kept = new Map<string, Kept>();
  private file: string | undefined;
  private lexer = new IncrementalLexer();

  /** `parse(text, file)`, reusing what the previous call read; never throws. */
  parse(text: string, file: string): IncrementalParse {
    if (file !== this.file) {
      this.kept.clear();
      this.lexer = new IncrementalLexer();
    }
    this.file = file;
    const source = new SourceMap(file, text);
    // Only the lines around the edit are lexed again (grammar/relex.ts).
    const { lexed, closed } = this.lexer.lex(text, source);
    const whole = (): IncrementalParse => ({ ...parse(text, file, true), tokens: lexed.tokens, reread: -1 });
    // A stray character only drops out of the tokens: the declarations around it still read alone. An unterminated
    // string or comment, or a parenthesis closed by recovery, changes what the whole-file parse reports.
    const unterminated = lexed.tokens.some((t) => t.tokenType === UnterminatedString);
    if (
      unterminated ||
      closed.diagnostics.length > 0 ||
      lexed.diagnostics.some((d) => d.code !== "unexpected-character")
    )
      return whole();

    const docs = new DocIndex(lexed.tokens, lexed.docComments);
    const next = new Map<string, Kept>();
    const builder = new SchemaBuilder(file, new Ctx(source, docs));
    const diagnostics: Diagnostic[] = [...lexed.diagnostics];
    let reread = 0;
    let prevEnd = 0;
    const slices = declarationSlices(closed.tokens);
    for (let i = 0; i < slices.length; i++) {
      const slice = slices[i]!;
      const first = slice[0]!;
      const last = slice[slice.length - 1]!;
      const end = last.startOffset + last.image.length;
      const key = text.slice(prevEnd, end);
      prevEnd = end;
      const line = first.startLine ?? 0;
      let k = next.has(key) ? undefined : this.kept.get(key);
      if (k && k.offset !== first.startOffset) {
        if (k.diagnostics.length > 0) k = undefined;
        else move(k, first.startOffset, line);
      }
      if (!k) {
        parser.input = slice;
        const root = parser.schema();
        if (parser.errors.length > 0) {
          // A declaration being typed: read it with the one after it, as the whole-file parse would.
          const pair = parsePairAt(slice, slices[i + 1], closed.tokens, source, docs);
          if (!pair) {
            // Keep every reading, old and new, for the version that fixes the error.
            for (const [kk, value] of next) this.kept.set(kk, value);
            return whole();
          }
          diagnostics.push(...pair.diagnostics);
          builder.take(pair.reads);
          reread += 2;
          if (slices[i + 1]) {
            const after = slices[++i]!;
            const afterLast = after[after.length - 1]!;
            prevEnd = afterLast.startOffset + afterLast.image.length;
          }
          continue;
        }
        const ctx = new Ctx(source, docs);
        k = { offset: first.startOffset, line, reads: readDeclarations(root, ctx), diagnostics: ctx.diagnostics };
        reread++;
      }
      next.set(key, k);
      diagnostics.push(...k.diagnostics);
      builder.take(k.reads);
    }
    this.kept = next;
    const built = builder.finish();
    return {
      schema: built.schema,
      diagnostics: dedupe([...diagnostics, ...built.diagnostics]).sort(byOffset),
      tokens: lexed.tokens,
      reread,
    };
  }
}
