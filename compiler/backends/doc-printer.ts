/**
 * A small document printer with prettier's line-fitting rule, for the few
 * generated constructs whose final form depends on the width of names
 * (method signatures, call arguments, generic type arguments): a backend
 * builds the same document prettier would build for its code, and this
 * prints it as prettier would, so no formatter runs (docs/decisions/1327-laid-out-client-methods.md).
 *
 * The rule (Wadler's "prettier printer", as prettier implements it): a
 * group is printed flat when its flat text, plus what follows it up to the
 * next place a line may break, fits in the width; otherwise its lines
 * break and its inner groups are tried again one by one.
 */

/** prettier's default print width, in columns: every generated TypeScript file is laid out within it. */
export const PRINT_WIDTH = 80;

/** A line: a space (or nothing, when soft) in a flat group, a newline at the current indentation in a broken one. */
export interface Line {
  readonly kind: "line";
  readonly soft: boolean;
  readonly hard: boolean;
}

/** Contents printed flat when they fit, broken otherwise; `broken` when a hard line inside forces it. */
export interface Group {
  readonly kind: "group";
  readonly contents: Doc;
  readonly broken: boolean;
  /** Names the group for an {@link IndentIfBreak} elsewhere. */
  readonly id?: symbol;
}

/** Contents whose broken lines are indented one level (two spaces) more. */
export interface Indent {
  readonly kind: "indent";
  readonly contents: Doc;
}

/** Contents indented one level when the group named `groupId` broke (prettier's "fluid" assignments). */
export interface IndentIfBreak {
  readonly kind: "indent-if-break";
  readonly contents: Doc;
  readonly groupId: symbol;
}

/** Text that depends on whether the enclosing group broke (a trailing comma, say). */
export interface IfBreak {
  readonly kind: "if-break";
  readonly broken: Doc;
  readonly flat: Doc;
}

/** A document: text (never holding a newline), a sequence, or one of the nodes above. */
export type Doc = string | readonly Doc[] | Line | Group | Indent | IndentIfBreak | IfBreak;
type Node = Line | Group | Indent | IndentIfBreak | IfBreak;

/** A line break that is a space when its group is flat. */
export const line: Line = { kind: "line", soft: false, hard: false };
/** A line break that is nothing when its group is flat. */
export const softline: Line = { kind: "line", soft: true, hard: false };
/** A line break in every case; it breaks every group around it. */
export const hardline: Line = { kind: "line", soft: false, hard: true };

function hasHardLine(doc: Doc): boolean {
  if (typeof doc === "string") return false;
  if (Array.isArray(doc)) return (doc as readonly Doc[]).some(hasHardLine);
  const node = doc as Node;
  switch (node.kind) {
    case "line":
      return node.hard;
    case "group":
      return node.broken;
    case "indent":
    case "indent-if-break":
      return hasHardLine(node.contents);
    case "if-break":
      return hasHardLine(node.broken) || hasHardLine(node.flat);
  }
}

/** A group of `contents`, already broken when a hard line stands inside (prettier's break propagation). */
export function group(contents: Doc, id?: symbol): Group {
  return { kind: "group", contents, broken: hasHardLine(contents), id };
}

/** `contents` indented one level when the group `groupId` broke. */
export function indentIfBreak(contents: Doc, groupId: symbol): IndentIfBreak {
  return { kind: "indent-if-break", contents, groupId };
}

/** `contents` indented one level where its lines break. */
export function indent(contents: Doc): Indent {
  return { kind: "indent", contents };
}

/** `broken` when the enclosing group breaks, else `flat`. */
export function ifBreak(broken: Doc, flat: Doc = ""): IfBreak {
  return { kind: "if-break", broken, flat };
}

/** `docs` with `separator` between each two. */
export function join(separator: Doc, docs: readonly Doc[]): Doc[] {
  return docs.flatMap((d, i) => (i === 0 ? [d] : [separator, d]));
}

type Mode = "flat" | "break";

/**
 * The printer's work list, as parallel arrays rather than an object per
 * entry: a client of 1,000 tables pushes millions of entries (bench/COMPILER.md).
 */
class Commands {
  readonly indents: number[] = [];
  readonly modes: Mode[] = [];
  readonly docs: Doc[] = [];

  get length(): number {
    return this.docs.length;
  }

  /** Pushes `doc`, or the parts of a sequence so that its first part is popped first. */
  push(indent: number, mode: Mode, doc: Doc): void {
    if (Array.isArray(doc)) {
      const parts = doc as readonly Doc[];
      for (let i = parts.length - 1; i >= 0; i--) this.push(indent, mode, parts[i]);
      return;
    }
    this.indents.push(indent);
    this.modes.push(mode);
    this.docs.push(doc);
  }
}

/**
 * Whether `doc` (flat) and what follows it on `rest` up to the next line
 * break fit in `width` columns. A space before a line break is not counted,
 * as prettier does not count it.
 */
function fits(doc: Doc, rest: Commands, width: number): boolean {
  let restIndex = rest.length;
  const docs: Doc[] = [doc];
  const modes: Mode[] = ["flat"];
  let pendingSpace = false;
  while (width >= 0) {
    let d: Doc;
    let mode: Mode;
    if (docs.length > 0) {
      d = docs.pop() as Doc;
      mode = modes.pop() as Mode;
    } else if (restIndex > 0) {
      restIndex--;
      d = rest.docs[restIndex];
      mode = rest.modes[restIndex];
    } else return true;
    if (typeof d === "string") {
      if (d === "") continue;
      width -= d.length + (pendingSpace ? 1 : 0);
      pendingSpace = false;
      continue;
    }
    if (Array.isArray(d)) {
      const parts = d as readonly Doc[];
      for (let i = parts.length - 1; i >= 0; i--) {
        docs.push(parts[i]);
        modes.push(mode);
      }
      continue;
    }
    const node = d as Node;
    switch (node.kind) {
      case "line":
        if (mode === "break" || node.hard) return true;
        if (!node.soft) pendingSpace = true;
        break;
      case "group":
        docs.push(node.contents);
        modes.push(node.broken ? "break" : mode);
        break;
      case "indent":
      case "indent-if-break":
        docs.push(node.contents);
        modes.push(mode);
        break;
      case "if-break":
        docs.push(mode === "break" ? node.broken : node.flat);
        modes.push(mode);
        break;
    }
  }
  return false;
}

/**
 * `doc` printed within `width` columns ({@link PRINT_WIDTH}) starting at
 * column `indentation`, which is also the indentation of its broken lines.
 * The first line carries no indentation (the caller has placed it);
 * trailing spaces before a newline are dropped, as prettier drops them.
 */
export function printDoc(doc: Doc, indentation = 0, width = PRINT_WIDTH): string {
  let out = "";
  let column = indentation;
  const commands = new Commands();
  const groupModes = new Map<symbol, Mode>();
  commands.push(indentation, "break", doc);
  while (commands.length > 0) {
    const indent = commands.indents.pop() as number;
    const mode = commands.modes.pop() as Mode;
    const d = commands.docs.pop() as Doc;
    if (typeof d === "string") {
      out += d;
      column += d.length;
      continue;
    }
    const node = d as Node;
    switch (node.kind) {
      case "group": {
        const flat =
          (mode === "flat" && !node.broken) || (!node.broken && fits(node.contents, commands, width - column));
        if (node.id !== undefined) groupModes.set(node.id, flat ? "flat" : "break");
        commands.push(indent, flat ? "flat" : "break", node.contents);
        break;
      }
      case "indent":
        commands.push(indent + 2, mode, node.contents);
        break;
      case "indent-if-break":
        commands.push(indent + (groupModes.get(node.groupId) === "break" ? 2 : 0), mode, node.contents);
        break;
      case "if-break":
        commands.push(indent, mode, mode === "break" ? node.broken : node.flat);
        break;
      case "line":
        if (mode === "flat" && !node.hard) {
          if (!node.soft) {
            out += " ";
            column++;
          }
        } else {
          let end = out.length;
          while (end > 0 && out.charCodeAt(end - 1) === 32) end--;
          out = out.slice(0, end) + "\n" + " ".repeat(indent);
          column = indent;
        }
        break;
    }
  }
  return out;
}
