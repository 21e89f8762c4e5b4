/**
 * Declared actions inside a resource block (docs/language.md, Actions;
 * docs/decisions/1334-declared-actions.md): `action name @collection
 * { field type … } returns { field type … }`. A field is written as a column
 * is, but takes no attribute: it is input or output, never stored.
 */
import type { CstNode } from "chevrotain";
import type { ActionDecl, FieldDecl } from "../../language/ir.js";
import { nameToken, node, nodes, token } from "./cst.js";
import type { Ctx } from "./context.js";
import { readAttribute } from "./args.js";
import { readType, type ReadType } from "./types.js";

/** The attributes an action itself takes. */
export const ACTION_ATTRIBUTES: readonly string[] = ["collection"];

function readFields(block: CstNode | undefined, what: string, ctx: Ctx, types: ReadType[]): FieldDecl[] {
  const out: FieldDecl[] = [];
  for (const c of nodes(block, "columnDecl")) {
    const name = nameToken(node(c, "name"));
    if (!name) continue;
    const type = readType(node(c, "typeRef"), ctx);
    const first = out.find((f) => f.name === name.image);
    if (first) {
      ctx.error(
        "duplicate-field",
        `Duplicate field "${name.image}" in ${what} (first declared at line ${first.span.line})`,
        ctx.tok(name),
      );
      continue;
    }
    for (const a of nodes(c, "attribute")) {
      const use = readAttribute(a, ctx);
      if (use)
        ctx.error(
          "field-attribute",
          `${use.written} cannot be used on a field of ${what}: a field takes a type and "?" only`,
          use.span,
        );
    }
    const field: FieldDecl = {
      name: name.image,
      type: type.type,
      nullable: type.nullable,
      span: ctx.nodeSpan(c, name),
    };
    const doc = ctx.docs.docFor(name);
    if (doc !== undefined) field.doc = doc;
    out.push(field);
    types.push(type);
  }
  return out;
}

/**
 * Builds an action from an `actionDecl` node; the types of its fields are
 * added to `types` for the file-wide type check. Reports an attribute other
 * than `@collection` (`unknown-attribute`) and attributes on fields
 * (`field-attribute`).
 */
export function readAction(n: CstNode, ctx: Ctx, types: ReadType[]): ActionDecl | undefined {
  const keyword = token(n, "Action");
  const name = nameToken(node(n, "name"));
  if (!name) return undefined;
  const action: ActionDecl = {
    name: name.image,
    target: "item",
    input: readFields(node(n, "input"), `the input of action "${name.image}"`, ctx, types),
    span: ctx.nodeSpan(n, keyword),
    nameSpan: ctx.tok(name),
  };
  const output = node(n, "output");
  if (output) action.output = readFields(output, `the output of action "${name.image}"`, ctx, types);
  const doc = ctx.docs.docFor(keyword);
  if (doc !== undefined) action.doc = doc;
  for (const a of nodes(n, "attribute")) {
    const use = readAttribute(a, ctx);
    if (!use) continue;
    if (use.name === "collection" && use.written === "@collection" && use.args.length === 0) {
      action.target = "collection";
      continue;
    }
    ctx.error(
      "unknown-attribute",
      use.name === "collection"
        ? `@collection takes no arguments`
        : `Unknown action attribute "${use.written}": an action takes @collection only`,
      use.span,
    );
  }
  return action;
}
