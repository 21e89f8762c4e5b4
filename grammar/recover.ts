/**
 * Closes attribute arguments left open at the end of a line (docs/decisions/0130-one-slip-one-error.md).
 *
 * `created_at timestamptz @default(now()` followed by the next column made
 * the parser read the following lines as more arguments: one slip gave a
 * missing ")" plus "too many arguments" and an unexpected "}" further down.
 * Arguments never hold an `@attribute`, and never need to run on past a
 * line after which the next line plainly starts something else (a column,
 * a `@@` attribute, a resource block, a new declaration or the closing
 * "}"); at either point a ")" is taken as written, the slip is reported
 * once, and the rest of the file parses as intended (docs/decisions/0130-one-slip-one-error.md).
 */
import type { IToken, TokenType } from "chevrotain";
import { createTokenInstance } from "./chevrotain.js";
import type { Diagnostic } from "../language/ir.js";
import type { SourceMap } from "./span.js";
import { describeParen } from "./syntax-errors.js";
import { And, declarationKeywords, Has, Identifier, In, Is, Not, Or, Resource } from "./tokens/keywords.js";
import { AttributeName, BlockAttributeName, UnterminatedString } from "./tokens/literals.js";
import { LParen, RCurly, RParen } from "./tokens/punctuation.js";

function is(t: IToken | undefined, type: TokenType): boolean {
  return t !== undefined && (t.tokenType === type || (t.tokenType.CATEGORIES?.includes(type) ?? false));
}

/** True when the token at `i` plainly starts a new member or declaration rather than continuing arguments. */
function startsSomethingElse(tokens: IToken[], i: number): boolean {
  const t = tokens[i]!;
  if (is(t, RCurly) || is(t, BlockAttributeName) || declarationKeywords.includes(t.tokenType)) return true;
  const next = tokens[i + 1];
  // `resource "/path"` and a column `name type` both start with a name followed, on the same line, by more than `,` or `)`.
  if (is(t, Resource)) return true;
  // A rule's parentheses may span lines (docs/decisions/1367-access-rules.md): `or b = 1`, `and not …` and
  // `b in […]`, `b is null`, `b not in …`, `b has …` continue the expression.
  if (t.tokenType === And || t.tokenType === Or || t.tokenType === Not) return false;
  const continues = next !== undefined && [In, Is, Not, Has].includes(next.tokenType);
  return (
    is(t, Identifier) && next !== undefined && next.startLine === t.startLine && is(next, Identifier) && !continues
  );
}

/**
 * Returns `tokens` with a `)` supplied wherever parentheses are still open
 * at a line end after which something else plainly starts, and one
 * `missing-paren` diagnostic per place, at the unclosed `(`.
 */
export function closeDanglingParens(
  tokens: IToken[],
  source: SourceMap,
): { tokens: IToken[]; diagnostics: Diagnostic[] } {
  const out: IToken[] = [];
  const diagnostics: Diagnostic[] = [];
  const open: number[] = []; // indexes into `tokens` of unclosed "("
  tokens.forEach((t, i) => {
    const prev = tokens[i - 1];
    // An `@attribute` never appears inside arguments; a new line may start the next member. (Asked only while a
    // "(" is open: the question costs a scan per token, and a 1,000-table file has a hundred thousand.)
    const closesHere =
      open.length > 0 && (is(t, AttributeName) || (t.startLine !== prev?.endLine && startsSomethingElse(tokens, i)));
    if (prev && closesHere) {
      const opener = tokens[open[0]!]!;
      // A string left open swallowed the ")": its own diagnostic says so already.
      const echo = tokens.slice(open[0]!, i).some((x) => is(x, UnterminatedString));
      if (!echo)
        diagnostics.push({
          severity: "error",
          code: "missing-paren",
          message: `Missing ")" to close ${describeParen(tokens, open[0]!)} opened at line ${opener.startLine}, column ${opener.startColumn}`,
          span: source.token(opener),
        });
      const end = (prev.endOffset ?? prev.startOffset) + 1;
      for (let k = 0; k < open.length; k++) {
        out.push(
          createTokenInstance(
            RParen,
            ")",
            end,
            end,
            prev.endLine ?? 0,
            prev.endLine ?? 0,
            (prev.endColumn ?? 0) + 1,
            (prev.endColumn ?? 0) + 1,
          ),
        );
      }
      open.length = 0;
    }
    if (is(t, LParen)) open.push(i);
    else if (is(t, RParen)) open.pop();
    out.push(t);
  });
  return { tokens: out, diagnostics };
}
