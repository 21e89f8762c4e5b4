/**
 * Source text to validated IR, and nothing more: what `resc check`, the
 * language server and every command reading a FILE need, without loading a
 * backend (bench/COMPILER.md: a command loads only what it uses).
 */
import type { IToken } from "chevrotain";
import { parse } from "../grammar/index.js";
import { IncrementalParser } from "../grammar/incremental.js";
import type { Diagnostic, ParseResult, Schema } from "../language/ir.js";
import { validate } from "./validate/index.js";
import { validateIntact } from "./validate/partial.js";

/** The outcome of compiling one schema text. */
export interface CompileResult {
  /** The schema as far as it could be built (complete when `ok`). */
  schema: Schema;
  /** Parser diagnostics, then the validator's (over the intact declarations when parsing failed), each list in source order. */
  diagnostics: Diagnostic[];
  /** No diagnostic of severity `error`: the backends may run. */
  ok: boolean;
}

/**
 * Parses and validates `text`, read from `file` (the name shown in
 * diagnostics). With syntax errors, the rules run over the declarations no
 * error touched, minus those that look across declarations, so a syntax
 * slip does not cascade into rule violations and does not hide the ones
 * elsewhere (docs/decisions/0230-rules-beside-syntax-errors.md). Never
 * throws on user input.
 */
export function compileSource(text: string, file: string): CompileResult {
  return validateParsed(parse(text, file));
}

function validateParsed(parsed: ParseResult): CompileResult {
  const syntaxErrors = parsed.diagnostics.filter((d) => d.severity === "error");
  const rules = syntaxErrors.length > 0 ? validateIntact(parsed.schema, syntaxErrors) : validate(parsed.schema);
  const diagnostics = [...parsed.diagnostics, ...rules];
  return { schema: parsed.schema, diagnostics, ok: !diagnostics.some((d) => d.severity === "error") };
}

/** What {@link IncrementalCompiler.compile} returns: {@link CompileResult} plus the document's significant tokens. */
export interface IncrementalCompileResult extends CompileResult {
  /**
   * The significant tokens of the text, in source order (the language
   * server locates positions with them). The next `compile` may move them in
   * place: keep only the newest result's.
   */
  tokens: IToken[];
}

/**
 * `compileSource` for successive versions of one document, as the language
 * server sees them: the parse keeps each unchanged declaration's reading
 * (grammar/incremental.ts), the validator runs over the whole schema. Gives
 * what `compileSource` gives for the same text (bench/COMPILER.md).
 */
export class IncrementalCompiler {
  private readonly parser = new IncrementalParser();

  /** Compiles `text`; never throws on user input. */
  compile(text: string, file: string): IncrementalCompileResult {
    const parsed = this.parser.parse(text, file);
    return { ...validateParsed(parsed), tokens: parsed.tokens };
  }
}
