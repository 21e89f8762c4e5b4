/**
 * Comments and line breaks between significant tokens, for the formatter.
 *
 * The lexer skips `//` and `/* *\/` comments (grammar/tokens/comments.ts),
 * so the formatter finds them again in the gaps between the significant
 * tokens, with the lexer's own patterns. Every comment is addressed by the
 * gap it sits in: gap `i` is the text just before token `i` (gap
 * `tokens.length` runs to the end of the file). The formatter keeps each
 * comment in its gap, which is what keeps a `///` doc comment attached to
 * the same declaration (grammar/to-ir/context.ts, `DocIndex`).
 */
import type { IToken } from "chevrotain";
import { BlockComment, DocComment, LineComment } from "../tokens/comments.js";

/** One comment as written. `text` has trailing blanks removed (line comments only). */
export interface Comment {
  text: string;
  /** `doc` for `///`, `line` for `//`, `block` for `/* *\/` (possibly over several lines). */
  kind: "doc" | "line" | "block";
  /** Offset of the comment in the source, UTF-16 code units. */
  offset: number;
}

/** A comment in a run, with the line breaks between it and what came before it (a token or a comment). */
export interface RunItem {
  comment: Comment;
  newlinesBefore: number;
}

/** The comments between two tokens, in order, and the line breaks after the last of them (or after the first token when there is none). */
export interface Run {
  items: RunItem[];
  newlinesAfter: number;
}

interface Gap {
  items: RunItem[];
  newlinesAfter: number;
}

function sticky(pattern: unknown): RegExp {
  if (!(pattern instanceof RegExp)) throw new Error("comment token without a regular expression pattern");
  return new RegExp(pattern.source, "y");
}

const DOC = sticky(DocComment.PATTERN);
const LINE = sticky(LineComment.PATTERN);
const BLOCK = sticky(BlockComment.PATTERN);
const SPACE = /[ \t\r\n\f\uFEFF]+/y;

function scanGap(text: string, start: number, end: number): Gap {
  const items: RunItem[] = [];
  let newlines = 0;
  let at = start;
  while (at < end) {
    SPACE.lastIndex = at;
    const space = SPACE.exec(text);
    if (space && space.index === at) {
      newlines += space[0].split("\n").length - 1;
      at += space[0].length;
      continue;
    }
    let kind: Comment["kind"] | undefined;
    let match: RegExpExecArray | null = null;
    for (const [k, re] of [
      ["doc", DOC],
      ["line", LINE],
      ["block", BLOCK],
    ] as const) {
      re.lastIndex = at;
      match = re.exec(text);
      if (match && match.index === at && match[0].length > 0) {
        kind = k;
        break;
      }
    }
    if (!kind || !match) throw new Error(`unexpected text between tokens at offset ${at}`);
    const raw = match[0];
    items.push({
      comment: { text: kind === "block" ? raw : raw.trimEnd(), kind, offset: at },
      newlinesBefore: newlines,
    });
    newlines = 0;
    at += raw.length;
  }
  return { items, newlinesAfter: newlines };
}

/** The comments of one source text, gap by gap, and which of them the printer has placed. */
export class Trivia {
  private readonly gaps: Gap[] = [];
  private readonly placed = new Set<Comment>();

  /** `tokens` are the significant tokens of `text` from a lexing without errors. */
  constructor(text: string, tokens: readonly IToken[]) {
    let prevEnd = 0;
    for (const t of tokens) {
      this.gaps.push(scanGap(text, prevEnd, t.startOffset));
      prevEnd = t.startOffset + t.image.length;
    }
    this.gaps.push(scanGap(text, prevEnd, text.length));
  }

  /**
   * The comments after token `a` and up to token `b` (gaps `a + 1` to `b`;
   * `a = -1` is the start of the file, `b = tokens.length` its end). Tokens
   * strictly between `a` and `b` are punctuation the printer re-creates
   * (commas), so their gaps are merged. Marks the comments as placed.
   */
  between(a: number, b: number): Run {
    const run = this.peek(a, b);
    for (const item of run.items) this.placed.add(item.comment);
    return run;
  }

  /** Like `between`, without marking the comments placed. */
  peek(a: number, b: number): Run {
    const items: RunItem[] = [];
    let carry = 0;
    for (let g = a + 1; g <= b; g++) {
      const gap = this.gaps[g];
      if (!gap) continue;
      for (const item of gap.items) {
        items.push({ comment: item.comment, newlinesBefore: carry + item.newlinesBefore });
        carry = 0;
      }
      carry += gap.newlinesAfter;
    }
    return { items, newlinesAfter: carry };
  }

  /** True when any comment lies after token `a` and up to token `b` (does not mark them placed). */
  hasComments(a: number, b: number): boolean {
    for (let g = a + 1; g <= b; g++) if ((this.gaps[g]?.items.length ?? 0) > 0) return true;
    return false;
  }

  /** Marks every comment in gaps `a + 1` to `b` placed (they are printed inside a verbatim slice). */
  placeVerbatim(a: number, b: number): void {
    this.between(a, b);
  }

  /** Every comment of the text, in source order. */
  all(): Comment[] {
    return this.gaps.flatMap((g) => g.items.map((i) => i.comment));
  }

  /** Comments the printer never placed (a formatter bug if any). */
  unplaced(): Comment[] {
    return this.all().filter((c) => !this.placed.has(c));
  }
}

/**
 * Splits a run into the comments that trail the token before it (on its
 * line: a run of comments with no line break before them, ending with a line
 * comment at the latest) and the rest. A `///` doc comment never trails: it
 * documents what follows, so it leads the next line.
 */
export function splitTrailing(run: Run): { trailing: Comment[]; rest: Run } {
  const trailing: Comment[] = [];
  let i = 0;
  for (; i < run.items.length; i++) {
    const item = run.items[i]!;
    if (item.newlinesBefore > 0 || item.comment.kind === "doc") break;
    trailing.push(item.comment);
    if (item.comment.kind === "line") {
      i++;
      break;
    }
  }
  return { trailing, rest: { items: run.items.slice(i), newlinesAfter: run.newlinesAfter } };
}
