/**
 * Turns Chevrotain's recognition exceptions into diagnostics a user
 * understands (docs/language.md, Diagnostics).
 *
 * Chevrotain carries only a message string from its message provider to the
 * exception, so the provider below encodes the structured facts (kind,
 * expected token labels, rule) as JSON, and `syntaxDiagnostic` — which also
 * sees the tokens around the error — writes the sentence and picks a stable
 * code: `missing-brace`, `missing-paren`, `missing-bracket`, `expected-type`,
 * `expected-value`, `expected-name`, `unexpected-token` or `syntax-error`.
 */
import type { IParserErrorMessageProvider, IRecognitionException, IToken, TokenType } from "chevrotain";
import type { Diagnostic } from "../language/ir.js";
import { real, type SourceMap } from "./span.js";

interface Encoded {
  kind: "mismatch" | "noViableAlt" | "earlyExit" | "notAllInput";
  rule: string;
  expected: string[];
}

function label(t: TokenType): string {
  return t.LABEL ?? t.name;
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

/** The message provider the parser is built with; its strings are decoded by `syntaxDiagnostic`. */
export const syntaxMessageProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, ruleName }) {
    return JSON.stringify({ kind: "mismatch", rule: ruleName, expected: [label(expected)] } satisfies Encoded);
  },
  buildNotAllInputParsedMessage({ ruleName }) {
    return JSON.stringify({ kind: "notAllInput", rule: ruleName, expected: [] } satisfies Encoded);
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, ruleName }) {
    const firsts = expectedPathsPerAlt.flatMap((paths) => paths.map((p) => (p[0] ? label(p[0]) : "")));
    return JSON.stringify({
      kind: "noViableAlt",
      rule: ruleName,
      expected: unique(firsts.filter(Boolean)),
    } satisfies Encoded);
  },
  buildEarlyExitMessage({ expectedIterationPaths, ruleName }) {
    const firsts = expectedIterationPaths.map((p) => (p[0] ? label(p[0]) : ""));
    return JSON.stringify({
      kind: "earlyExit",
      rule: ruleName,
      expected: unique(firsts.filter(Boolean)),
    } satisfies Encoded);
  },
};

function decode(message: string): Encoded {
  try {
    const v = JSON.parse(message) as Encoded;
    if (v && typeof v.kind === "string") return v;
  } catch {
    // A message not built by our provider: fall through to a generic reading.
  }
  return { kind: "mismatch", rule: "", expected: [] };
}

/** What a syntax error needs to know about the file around it. */
export interface SyntaxContext {
  source: SourceMap;
  /** All significant tokens of the file, in order. */
  tokens: IToken[];
}

const OPENERS: Record<string, string> = { "}": "{", ")": "(", "]": "[" };

function show(t: IToken | undefined): string {
  if (!real(t) || t.tokenType.name === "EOF") return "the end of the file";
  const image = t.image.length > 30 ? `${t.image.slice(0, 30)}…` : t.image;
  return image.startsWith('"') ? image : `"${image}"`;
}

function isEof(t: IToken): boolean {
  return t.tokenType.name === "EOF" || !real(t);
}

function indexOfToken(tokens: IToken[], t: IToken): number {
  if (isEof(t)) return tokens.length;
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens[mid]!.startOffset < t.startOffset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The unmatched opening bracket (`{`, `(` or `[`) before token index `at`, or undefined. */
function findOpener(tokens: IToken[], at: number, close: string): number | undefined {
  const open = OPENERS[close];
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    const img = tokens[i]!.image;
    if (img === close) depth++;
    else if (img === open) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return undefined;
}

/** Names the block a `{` at `i` opens: `table "films"`, `resource "/films"`, `the api block`. */
function describeBlock(tokens: IToken[], i: number): string {
  const a = tokens[i - 1];
  const b = tokens[i - 2];
  if (
    a &&
    (a.image === "api" || a.image === "auth" || a.image === "generate" || a.image === "jwt" || a.image === "database")
  )
    return `the ${a.image} block`;
  // `access a, b {`: the roles back to the keyword.
  let k = i - 1;
  while (k >= 2 && tokens[k - 1]!.image === ",") k -= 2;
  if (k >= 1 && tokens[k - 1]!.image === "access" && tokens[k - 1]!.tokenType.name === "Access") {
    return `access ${tokens
      .slice(k, i)
      .filter((t) => t.image !== ",")
      .map((t) => t.image)
      .join(", ")}`;
  }
  if (b && a) {
    const kind = b.image === "security" ? "security scheme" : b.image;
    const name = a.image.startsWith('"') ? a.image : `"${a.image}"`;
    return `${kind} ${name}`;
  }
  return "the block";
}

/** How the "(" at `i` reads in a message: `the arguments of "@default"`, or `the "(" after "now"`. */
export function describeParen(tokens: IToken[], i: number): string {
  const a = tokens[i - 1];
  if (!a) return `"("`;
  if (a.image.startsWith("@")) return `the arguments of "${a.image}"`;
  return `the "(" after "${a.image}"`;
}

const BODY_EXPECTATION: Record<string, string> = {
  tableDecl: `expected a column, a "@@" attribute, a resource block or "}"`,
  settingsBlock: `expected a setting (name = value) or "}"`,
  resourceBody: `expected a setting (name = value), an action or "}"`,
  fieldBlock: `expected a field (name type) or "}"`,
  apiDecl: `expected a setting, a security scheme or "}"`,
  authDecl: `expected a setting (name = value), a claim, a jwt or database block or "}"`,
  accessDecl: `expected ops = […], rows, check, stamp, hide or "}"`,
  enumDecl: `expected an enum value or "}"`,
};

const DECLARATION_WORDS = new Set(["api", "auth", "generate", "enum", "domain", "table"]);

/**
 * One diagnostic for one recognition exception. The span is the offending
 * token, or for a block left open at the end of the file, the `{` that
 * opened it.
 */
export function syntaxDiagnostic(e: IRecognitionException, ctx: SyntaxContext): Diagnostic {
  const { source, tokens } = ctx;
  const info = decode(e.message);
  const actual = e.token;
  const previous = (e as { previousToken?: IToken }).previousToken;
  const at = indexOfToken(tokens, actual);
  const ruleStack = e.context?.ruleStack ?? [];
  const rule = info.rule || ruleStack[ruleStack.length - 1] || "";
  const whereActual = isEof(actual) ? source.span(source.text.length, source.text.length) : source.token(actual);
  const diag = (code: string, message: string, span = whereActual): Diagnostic => ({
    severity: "error",
    code,
    message,
    span,
  });
  const expected = info.expected[0] ?? "";

  // With recovery on, Chevrotain reports leftover top-level text as a
  // mismatch against EOF rather than as "not all input parsed".
  if (info.kind === "notAllInput" || (info.kind === "mismatch" && expected === "EOF")) {
    if (actual.image === "}") return diag("unexpected-token", `Unexpected "}": there is no open block to close`);
    return diag(
      "unexpected-token",
      `Unexpected ${show(actual)}: expected a declaration (table, enum, domain, api, auth or generate)`,
    );
  }

  if (info.kind === "mismatch") {
    if (expected === `"}"`) {
      const open = findOpener(tokens, at, "}");
      const block = open === undefined ? "the block" : describeBlock(tokens, open);
      const endsBlock = isEof(actual) || DECLARATION_WORDS.has(actual.image);
      if (endsBlock && open !== undefined) {
        const line = tokens[open]!.startLine ?? 0;
        const span = isEof(actual) ? source.token(tokens[open]!) : whereActual;
        return diag("missing-brace", `Missing "}" to close ${block} opened at line ${line}`, span);
      }
      const expectation = BODY_EXPECTATION[rule] ?? `expected "}"`;
      return diag("unexpected-token", `Unexpected ${show(actual)} in ${block}: ${expectation}`);
    }
    if (expected === `")"` || expected === `"]"`) {
      const close = expected === `")"` ? ")" : "]";
      const open = findOpener(tokens, at, close);
      const code = close === ")" ? "missing-paren" : "missing-bracket";
      if (open !== undefined) {
        const opener = tokens[open]!;
        const what = close === ")" ? describeParen(tokens, open) : "the list";
        if (isEof(actual) || actual.startLine !== opener.startLine) {
          return diag(
            code,
            `Missing "${close}" to close ${what} opened at line ${opener.startLine}, column ${opener.startColumn}`,
          );
        }
        return diag("unexpected-token", `Unexpected ${show(actual)} in ${what}: expected a value, "," or "${close}"`);
      }
      return diag(code, `Expected "${close}", found ${show(actual)}`);
    }
    if (rule === "typeRef" && expected === "a name") {
      const owner = ruleStack.includes("domainDecl") ? "a base type for the domain" : "a column type";
      return diag("expected-type", `Expected ${owner} after ${show(previous)}, found ${show(actual)}`);
    }
    if (rule === "resourceDecl" && expected === "a string") {
      return diag("syntax-error", `Expected the resource path as a string (resource "/items"), found ${show(actual)}`);
    }
    if (rule === "setting" && expected === `"="`) {
      return diag("syntax-error", `Expected "=" after setting ${show(previous)}, found ${show(actual)}`);
    }
    return diag(
      "syntax-error",
      `Expected ${expected || "something else"} after ${show(previous)}, found ${show(actual)}`,
    );
  }

  // No viable alternative / early exit: the next token starts nothing the rule allows.
  // Rule expressions (docs/decisions/1367-access-rules.md) say what may stand there in their own words.
  if (rule === "ruleOperand") {
    return diag(
      "expected-value",
      `Expected claim.<name>, a string, a number, true, false, null or a list after ${show(previous)}, found ${show(actual)}`,
    );
  }
  if (rule === "ruleCmp" || rule === "ruleExpr" || rule === "ruleAnd") {
    return diag(
      "syntax-error",
      `Expected an operator (=, !=, <, <=, >, >=, in, not in, has, is null, is not null) after ${show(previous)}, found ${show(actual)}`,
    );
  }
  if (rule === "ruleNot") {
    return diag(
      "syntax-error",
      `Expected a rule (column = claim.name, column is null, "(" …) after ${show(previous)}, found ${show(actual)}`,
    );
  }
  if (rule === "value") {
    return diag("expected-value", `Expected a value after ${show(previous)}, found ${show(actual)}`);
  }
  if (rule === "anyName") {
    return diag("expected-name", `Expected a name after ${show(previous)}, found ${show(actual)}`);
  }
  const options = info.expected.slice(0, 6).join(", ");
  return diag(
    "syntax-error",
    `Unexpected ${show(actual)} after ${show(previous)}${options ? `: expected ${options}` : ""}`,
  );
}
