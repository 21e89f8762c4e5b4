/**
 * The group parameters `?or=(…)`, `?and=(…)` and `?not=(…)`, with nested
 * `or(…)`, `and(…)`, `not(…)` children (spec: Query grammar). A child is
 * `<column>.<operator>.<value>`: inside a group the operator is always
 * written. How a group is split into children, and how list values and
 * quoted values are written inside one, is in
 * docs/decisions/0300-filter-syntax.md.
 */
import { MAX_GROUP_DEPTH } from "../descriptor.js";
import { and, not, or, type Predicate } from "../predicate.js";
import { buildLeaf, type FilterContext } from "./leaf.js";
import { splitChildren, unwrapGroup } from "./syntax.js";

/** The three group operators. */
export type GroupKind = "and" | "or" | "not";

/**
 * Combines a group's children: `not` negates the conjunction of its
 * children, so `not=(a,b)` is NOT (a AND b) (spec: Query grammar).
 */
export function combineGroup(kind: GroupKind, children: Predicate[]): Predicate {
  if (kind === "or") return or(...children);
  const all = and(...children);
  return kind === "not" ? not(all) : all;
}

interface GroupSite {
  ctx: FilterContext;
  /** The outer parameter: `or`, `and` or `not`. */
  param: GroupKind;
  location: string;
}

function parseChild(site: GroupSite, text: string, depth: number, path: string): Predicate | undefined {
  const nested = /^(and|or|not)\(/.exec(text);
  if (nested) {
    const kind = nested[1] as GroupKind;
    const u = unwrapGroup(text.slice(kind.length));
    if (!u.ok) {
      site.ctx.problems.add(site.location, `${path}: ${u.detail}`, { value: text });
      return undefined;
    }
    return parseGroup(site, kind, u.value, depth + 1, `${path}, ${kind} group`);
  }
  const firstDot = text.indexOf(".");
  const secondDot = firstDot < 0 ? -1 : text.indexOf(".", firstDot + 1);
  if (firstDot <= 0) {
    const hint =
      text === ""
        ? "empty child"
        : `expected column.operator.value (a list inside a group is written in parentheses: column.in.(a,b))`;
    site.ctx.problems.add(site.location, `${path}: ${hint}`, { value: text });
    return undefined;
  }
  const column = text.slice(0, firstDot);
  const op = secondDot < 0 ? text.slice(firstDot + 1) : text.slice(firstDot + 1, secondDot);
  const value = secondDot < 0 ? undefined : text.slice(secondDot + 1);
  return buildLeaf(site.ctx, { location: site.location, prefix: `${path} (${text}): `, parameter: false }, column, op, {
    from: "url",
    text: value,
  });
}

function parseGroup(
  site: GroupSite,
  kind: GroupKind,
  inner: string,
  depth: number,
  path: string,
): Predicate | undefined {
  const problems = site.ctx.problems;
  if (depth > MAX_GROUP_DEPTH) {
    problems.add(
      site.location,
      `${path}: groups nested too deeply; at most ${MAX_GROUP_DEPTH} levels, the ${site.param}= parameter counting as 1`,
    );
    return undefined;
  }
  const split = splitChildren(inner);
  if (!split.ok) {
    problems.add(site.location, `${path}: ${split.detail}`, { value: inner });
    return undefined;
  }
  if (split.value.length === 1 && split.value[0] === "") {
    problems.add(site.location, `${path}: empty group; a group needs at least one child`);
    return undefined;
  }
  const children = split.value.map((c, i) => parseChild(site, c, depth, `${path} child ${i + 1}`));
  const good = children.filter((c): c is Predicate => c !== undefined);
  return good.length === children.length ? combineGroup(kind, good) : undefined;
}

/**
 * Parses the value of an `or`, `and` or `not` parameter, recording problems
 * at `query.<kind>`; the parameter itself is nesting level 1 and
 * {@link MAX_GROUP_DEPTH} levels are allowed.
 * @returns the group's predicate, or undefined when a problem was recorded
 */
export function parseGroupParam(ctx: FilterContext, kind: GroupKind, text: string): Predicate | undefined {
  const site: GroupSite = { ctx, param: kind, location: `query.${kind}` };
  const u = unwrapGroup(text);
  if (!u.ok) {
    ctx.problems.add(site.location, `${kind}=: ${u.detail}`, { value: text });
    return undefined;
  }
  return parseGroup(site, kind, u.value, 1, `${kind} group`);
}
