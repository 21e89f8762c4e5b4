/**
 * Typed access to the CST the parser builds. Error recovery can leave any
 * child missing, so every accessor may return nothing and callers cope.
 */
import type { CstElement, CstNode, IToken } from "chevrotain";
import { real } from "../span.js";

function isNode(e: CstElement): e is CstNode {
  return (e as CstNode).children !== undefined;
}

/** The sub-nodes stored under `key` (a rule name or label). */
export function nodes(node: CstNode | undefined, key: string): CstNode[] {
  return (node?.children[key] ?? []).filter(isNode);
}

/** The first sub-node under `key`. */
export function node(parent: CstNode | undefined, key: string): CstNode | undefined {
  // A loop, not `nodes(…)[0]`: this runs for every name, type and attribute of a file (bench/COMPILER.md).
  for (const e of parent?.children[key] ?? []) if (isNode(e)) return e;
  return undefined;
}

/** The real (not recovery-inserted) tokens stored under `key` (a token name or label). */
export function tokens(node: CstNode | undefined, key: string): IToken[] {
  return (node?.children[key] ?? []).filter((e): e is IToken => !isNode(e) && real(e));
}

/** The first real token under `key`. */
export function token(node: CstNode | undefined, key: string): IToken | undefined {
  for (const e of node?.children[key] ?? []) if (!isNode(e) && real(e)) return e;
  return undefined;
}

/** Every real token of a node, in source order. */
export function allTokens(n: CstNode | undefined): IToken[] {
  const out: IToken[] = [];
  const walk = (x: CstNode): void => {
    for (const list of Object.values(x.children)) {
      for (const e of list) {
        if (isNode(e)) walk(e);
        else if (real(e)) out.push(e);
      }
    }
  };
  if (n) walk(n);
  return out.sort((a, b) => a.startOffset - b.startOffset);
}

/**
 * The first and last real tokens of a node by source offset, or nothing when
 * recovery left it empty. One walk without collecting or sorting: spans are
 * taken for every declaration, column and attribute, so this stays linear
 * in the node's size (bench/COMPILER.md).
 */
export function tokenRange(n: CstNode | undefined): { first: IToken; last: IToken } | undefined {
  let first: IToken | undefined;
  let last: IToken | undefined;
  const walk = (x: CstNode): void => {
    for (const key in x.children) {
      for (const e of x.children[key]!) {
        if (isNode(e)) walk(e);
        else if (real(e)) {
          if (!first || e.startOffset < first.startOffset) first = e;
          if (!last || e.startOffset > last.startOffset) last = e;
        }
      }
    }
  };
  if (n) walk(n);
  return first && last ? { first, last } : undefined;
}

/**
 * The source offsets `[start, end)` a node covers, from its first to its last
 * real token, or nothing when recovery left it empty. Read from the location
 * Chevrotain tracks while parsing (`nodeLocationTracking`; recovery-inserted
 * tokens have NaN offsets and do not move it), so taking the span of every
 * table, column, attribute and value costs no walk of its subtree (bench/COMPILER.md).
 */
export function offsetRange(n: CstNode | undefined): { start: number; end: number } | undefined {
  const loc = n?.location;
  if (loc && Number.isFinite(loc.startOffset) && Number.isFinite(loc.endOffset)) {
    return { start: loc.startOffset, end: loc.endOffset! + 1 };
  }
  const range = tokenRange(n);
  return range && { start: range.first.startOffset, end: range.last.startOffset + range.last.image.length };
}

/** The token of an `anyName` node (an identifier or a keyword used as a name). */
export function nameToken(n: CstNode | undefined): IToken | undefined {
  // An anyName node holds one token: take it without walking.
  if (n) {
    const keys = Object.keys(n.children);
    if (keys.length === 1) {
      const only = n.children[keys[0]!]!;
      if (only.length === 1 && !isNode(only[0]!)) return real(only[0]) ? only[0] : undefined;
    }
  }
  return tokenRange(n)?.first;
}
