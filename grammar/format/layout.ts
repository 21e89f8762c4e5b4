/**
 * Block layout: members one per line, leading and trailing comments kept in
 * place, blank lines kept (at most one), and the cells of neighbouring rows
 * aligned in columns. A blank line starts a new alignment group
 * (docs/decisions/1100-formatter-layout.md).
 */
import type { Comment, Run } from "./trivia.js";
import { commentText, CONTINUATION, type Printer } from "./printer.js";

/**
 * One member printed as a row. `cells` are padded to the widest cell of the
 * same `kind` in the group (a cell holding a line break opts the row out of
 * alignment); `rest` follows them on the first line; `more` are
 * continuation lines placed at the column where `rest` starts. Any text may
 * span lines when its later lines carry their own indentation (an expanded
 * list).
 */
export interface Row {
  kind: string;
  cells: string[];
  rest: string;
  more: RowLine[];
}

/** A continuation line of a row: text (possibly empty) and a comment ending the line. */
export interface RowLine {
  text: string;
  comment?: string;
}

/** A member of a block, in source order, with the tokens it spans. */
export interface Member {
  first: number;
  last: number;
  /** Members are stably sorted by section (a table puts columns, then table attributes, then the resource block). */
  section: number;
  /** Prints the member at `indent`. */
  print(indent: string): Row;
}

/** A comment line of a block and whether a blank line precedes it. */
interface CommentLine {
  comment: Comment;
  blankBefore: boolean;
}

interface Placed {
  member: Member;
  leading: CommentLine[];
  blankBefore: boolean;
  trailing: Comment[];
}

/** What a block body prints to. */
export interface Body {
  /** Comments that trail the opening line (after `{`), or "". */
  openComment: string;
  /** The lines of the body, indented. */
  lines: string[];
}

/** Options of `renderBody`. */
export interface BodyOptions {
  /** Sort members by `section`, a blank line between sections. */
  sections?: boolean;
  /** A blank line is forced between two neighbours when this says so (top-level declarations). */
  blankBetween?: (before: Row, after: Row) => boolean;
}

function leadingOf(run: Run): { leading: CommentLine[]; blankAfter: boolean } {
  const leading = run.items.map((i) => ({ comment: i.comment, blankBefore: i.newlinesBefore >= 2 }));
  return { leading, blankAfter: run.newlinesAfter >= 2 };
}

function isSingleLine(s: string): boolean {
  return !s.includes("\n");
}

/**
 * Prints the members between token `open` and token `close` (`-1` and
 * `tokens.length` for the whole file) at `indent`.
 */
export function renderBody(
  p: Printer,
  members: Member[],
  open: number,
  close: number,
  indent: string,
  options: BodyOptions = {},
): Body {
  const atFileStart = open < 0;
  const placed: Placed[] = [];
  let openComment: Comment[] = [];
  let prevLast = open;
  for (const m of members) {
    const { trailing, rest } = p.split(prevLast, m.first);
    if (placed.length > 0) placed[placed.length - 1]!.trailing = trailing;
    else if (atFileStart) rest.items.unshift(...trailing.map((c) => ({ comment: c, newlinesBefore: 0 })));
    else openComment = trailing;
    const { leading, blankAfter } = leadingOf(rest);
    const blankBefore = leading.length > 0 ? leading[0]!.blankBefore : blankAfter;
    if (leading.length > 0) {
      leading[0]!.blankBefore = false;
      if (blankAfter) leading.push({ comment: BLANK, blankBefore: true });
    }
    placed.push({ member: m, leading, blankBefore, trailing: [] });
    prevLast = m.last;
  }
  const end = p.split(prevLast, close);
  if (placed.length > 0) placed[placed.length - 1]!.trailing = end.trailing;
  else if (atFileStart) end.rest.items.unshift(...end.trailing.map((c) => ({ comment: c, newlinesBefore: 0 })));
  else openComment = end.trailing;
  const dangling = leadingOf(end.rest).leading;
  if (placed.length === 0 && dangling[0]) dangling[0].blankBefore = false;

  const ordered = options.sections ? [...placed].sort((a, b) => a.member.section - b.member.section) : placed;
  if (options.sections) {
    ordered.forEach((x, i) => {
      if (i > 0 && ordered[i - 1]!.member.section !== x.member.section) x.blankBefore = true;
    });
  }
  const rows = ordered.map((x) => x.member.print(indent));
  if (options.blankBetween) {
    for (let i = 1; i < rows.length; i++)
      if (options.blankBetween(rows[i - 1]!, rows[i]!)) ordered[i]!.blankBefore = true;
  }
  if (ordered[0]) ordered[0].blankBefore = false;

  const lines: string[] = [];
  let g = 0;
  while (g < ordered.length) {
    let h = g + 1;
    while (h < ordered.length && !ordered[h]!.blankBefore && !ordered[h]!.leading.some((l) => l.blankBefore)) h++;
    renderGroup(ordered.slice(g, h), rows.slice(g, h), indent, lines);
    g = h;
  }
  for (const d of dangling) {
    if (d.blankBefore && lines.length > 0) lines.push("");
    lines.push(indent + d.comment.text);
  }
  return { openComment: commentText(openComment), lines };
}

/** Stands for "a blank line between the leading comments and their member" at the end of a leading list. */
const BLANK: Comment = { text: "", kind: "line", offset: -1 };

function widths(rows: Row[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of rows) {
    if (!r.cells.every(isSingleLine)) continue;
    const w = out.get(r.kind) ?? [];
    r.cells.forEach((c, i) => (w[i] = Math.max(w[i] ?? 0, c.length)));
    out.set(r.kind, w);
  }
  return out;
}

function renderGroup(group: Placed[], rows: Row[], indent: string, lines: string[]): void {
  const w = widths(rows);
  const rendered = rows.map((r) => renderRow(r, w.get(r.kind) ?? [], indent));
  // Trailing comments of one-line rows line up; a row spanning lines keeps its comment two spaces after it.
  const single = rendered.filter((r, i) => r.length === 1 && isSingleLine(r[0]!) && group[i]!.trailing.length > 0);
  const commentColumn = Math.max(0, ...single.map((r) => r[0]!.length)) + 2;
  group.forEach((x, i) => {
    if (x.blankBefore && lines.length > 0) lines.push("");
    for (const l of x.leading) {
      if (l.blankBefore && lines.length > 0) lines.push("");
      if (l.comment !== BLANK) lines.push(indent + l.comment.text);
    }
    const out = rendered[i]!;
    if (x.trailing.length > 0) {
      const lastLine = out[out.length - 1]!;
      const pad = out.length === 1 && isSingleLine(lastLine) ? commentColumn - lastLine.length : 2;
      out[out.length - 1] = lastLine + " ".repeat(Math.max(2, pad)) + commentText(x.trailing);
    }
    lines.push(...out);
  });
}

/** A row as lines (a line may still hold line breaks of an expanded list). */
function renderRow(r: Row, w: number[], indent: string): string[] {
  const aligned = r.cells.every(isSingleLine) && w.length >= r.cells.length;
  let head: string;
  let restColumn: number;
  if (aligned) {
    const padded = r.cells.map((c, i) => c.padEnd(w[i]!));
    head = padded.join(" ");
    restColumn = indent.length + head.length + 1;
  } else {
    head = r.cells.join(" ");
    restColumn = indent.length + CONTINUATION.length;
  }
  const first = r.rest === "" ? head.trimEnd() : head === "" ? r.rest : `${head} ${r.rest}`;
  const out = [indent + first];
  for (const m of r.more) {
    const text = m.comment === undefined ? m.text : m.text === "" ? m.comment : `${m.text}  ${m.comment}`;
    out.push(" ".repeat(restColumn) + text);
  }
  return out;
}
