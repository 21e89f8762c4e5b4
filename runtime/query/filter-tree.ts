/**
 * The `?filter=` JSON tree (spec: Query grammar, "The same filter may also
 * be supplied as a JSON tree"): groups `{"op":"and"|"or","children":[…]}`,
 * negation `{"op":"not","children":[one]}` and leaves
 * `{"field","op","value"}`. It shares the URL filters' leaf rules, their
 * MaxFilters budget and their nesting limit
 * (docs/decisions/0302-filter-tree.md).
 */
import { MAX_GROUP_DEPTH } from "../descriptor.js";
import type { Predicate } from "../predicate.js";
import { combineGroup, type GroupKind } from "./groups.js";
import { buildLeaf, type FilterContext } from "./leaf.js";

const LOCATION = "query.filter";
const GROUP_MEMBERS = new Set(["op", "children"]);
const LEAF_MEMBERS = new Set(["field", "op", "value"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isGroupOp(v: unknown): v is GroupKind {
  return v === "and" || v === "or" || v === "not";
}

function problem(ctx: FilterContext, path: string, detail: string, value?: unknown): undefined {
  ctx.problems.add(LOCATION, `filter at ${path}: ${detail}`, value === undefined ? {} : { value });
  return undefined;
}

function strayMembers(o: Record<string, unknown>, allowed: ReadonlySet<string>): string[] {
  return Object.keys(o).filter((k) => !allowed.has(k));
}

function group(
  ctx: FilterContext,
  o: Record<string, unknown>,
  kind: GroupKind,
  depth: number,
  path: string,
): Predicate | undefined {
  const stray = strayMembers(o, GROUP_MEMBERS);
  if (stray.length > 0)
    return problem(ctx, path, `unknown member ${stray.join(", ")} in a group (members: op, children)`);
  if (depth > MAX_GROUP_DEPTH) return problem(ctx, path, `groups nested too deeply; at most ${MAX_GROUP_DEPTH} levels`);
  const children = o.children;
  if (!Array.isArray(children) || children.length === 0)
    return problem(ctx, path, "a group needs a non-empty children array");
  if (kind === "not" && children.length !== 1) {
    return problem(
      ctx,
      path,
      `not takes exactly one child (${children.length} given); wrap several in {"op":"and","children":[…]}`,
    );
  }
  const parsed = children.map((c, i) => node(ctx, c, depth, `${path}.children[${i}]`));
  const good = parsed.filter((p): p is Predicate => p !== undefined);
  return good.length === parsed.length ? combineGroup(kind, good) : undefined;
}

function node(ctx: FilterContext, v: unknown, parentDepth: number, path: string): Predicate | undefined {
  if (!isObject(v)) return problem(ctx, path, 'expected an object: {"field","op","value"} or {"op","children"}', v);
  if (isGroupOp(v.op) && !Object.hasOwn(v, "field")) return group(ctx, v, v.op, parentDepth + 1, path);
  const stray = strayMembers(v, LEAF_MEMBERS);
  if (stray.length > 0)
    return problem(ctx, path, `unknown member ${stray.join(", ")} in a condition (members: field, op, value)`);
  if (typeof v.field !== "string") return problem(ctx, path, "field must be a string naming a column");
  if (typeof v.op !== "string") return problem(ctx, path, "op must be a string naming an operator");
  return buildLeaf(
    ctx,
    { location: LOCATION, prefix: `filter at ${path} (${v.field}): `, parameter: false },
    v.field,
    v.op,
    {
      from: "json",
      present: Object.hasOwn(v, "value"),
      value: v.value,
    },
  );
}

/**
 * Parses one `?filter=` value, recording problems at `query.filter`
 * (malformed JSON included).
 * @returns the tree's predicate, or undefined when a problem was recorded
 */
export function parseFilterTree(ctx: FilterContext, text: string): Predicate | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    ctx.problems.add(LOCATION, "filter is not valid JSON", { value: text });
    return undefined;
  }
  return node(ctx, doc, 0, "$");
}
