/**
 * Source positions: turns offsets into the IR's `Span` (language/ir.ts).
 *
 * Lines and columns are 1-based and count UTF-16 code units; the end is
 * exclusive (`endColumn` is the column just after the last character), see
 * docs/decisions/0100-span-end-is-exclusive.md.
 */
import type { IToken } from "chevrotain";
import type { Span } from "../language/ir.js";
import { holdsWide, oneByte } from "./one-byte.js";

/** Maps offsets of one source text to spans. Built once per parse. */
export class SourceMap {
  private readonly lineStarts: number[] = [0];
  /** Whether the text holds a character above U+00FF, so that parts cut from it need a one-byte copy (decision 1354). */
  private readonly wide: boolean;

  /** `file` is copied into every span; `text` is the whole source. */
  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    for (let i = 0; i < text.length; i++) {
      if (text[i] === "\n") this.lineStarts.push(i + 1);
    }
    this.wide = holdsWide(text);
  }

  /**
   * The text from `start` (inclusive) to `end` (exclusive), as a one-byte
   * string whenever its characters allow, even when the whole text is
   * two-byte (decision 1354): such parts become names and SQL. Offsets are
   * clamped as `String.prototype.slice` clamps them; throws nothing.
   */
  cut(start: number, end: number): string {
    const part = this.text.slice(start, end);
    return this.wide ? oneByte(part) : part;
  }

  /** 1-based line and column of an offset (clamped into the text). */
  position(offset: number): { line: number; column: number } {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: o - this.lineStarts[lo]! + 1 };
  }

  /** The span from `start` (inclusive) to `end` (exclusive). Non-finite offsets (tokens invented by error recovery) fall back to the end of the text. */
  span(start: number, end: number): Span {
    const s = Number.isFinite(start) ? Math.max(0, Math.min(start, this.text.length)) : this.text.length;
    const e = Number.isFinite(end) ? Math.max(s, Math.min(end, this.text.length)) : s;
    const a = this.position(s);
    const b = this.position(e);
    return {
      file: this.file,
      line: a.line,
      column: a.column,
      endLine: b.line,
      endColumn: b.column,
      offset: s,
      length: e - s,
    };
  }

  /** The span of one token; an inserted (virtual) token yields an empty span at the end of the text. */
  token(t: IToken): Span {
    return this.span(t.startOffset, t.startOffset + t.image.length);
  }

  /** The span from the start of `first` to the end of `last`. */
  between(first: IToken, last: IToken): Span {
    if (!real(first)) return this.token(last);
    if (!real(last)) return this.token(first);
    return this.span(first.startOffset, last.startOffset + last.image.length);
  }
}

/** True for a token that exists in the source (error recovery can insert virtual ones with NaN offsets). */
export function real(t: IToken | undefined): t is IToken {
  return t !== undefined && Number.isFinite(t.startOffset) && t.isInsertedInRecovery !== true;
}

/** Index of the first token in `ts` (sorted by offset) starting at or after `offset`; `ts.length` when none. */
export function firstAtOrAfter(ts: readonly IToken[], offset: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ts[mid]!.startOffset < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
