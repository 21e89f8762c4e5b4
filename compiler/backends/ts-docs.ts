/**
 * Documents of the TypeScript constructs generated code uses, built as
 * prettier builds them, for the document printer (doc-printer.ts) to lay
 * out in prettier's final form (docs/decisions/1327-laid-out-client-methods.md).
 * `node scripts/prettier-doc.mjs '<code>'` prints prettier's own document
 * for comparison.
 */
import { group, ifBreak, indent, indentIfBreak, join, line, softline, type Doc } from "./doc-printer.js";

/** A bracketed, comma-separated list as prettier prints arguments and parameters: one per line when it breaks. */
export function list(open: string, items: readonly Doc[], close: string, trailingComma: boolean): Doc {
  return group([
    open,
    indent([softline, join([",", line], items)]),
    trailingComma ? ifBreak(",") : "",
    softline,
    close,
  ]);
}

/** A generic type reference; a lone argument that is a bare name stays inline, as prettier keeps it. */
export function typeRef(name: string, args: readonly Doc[]): Doc {
  if (args.length === 1 && typeof args[0] === "string" && /^[\w$.]+$/.test(args[0])) return [name, "<", args[0], ">"];
  return [name, list("<", args, ">", false)];
}

/**
 * A type parameter `[const ]N extends A | B = D`: the constraint and the
 * default each move to the next line when they do not fit, and a union
 * constraint moves to its own line before it breaks before its `|`s, as
 * prettier prints them.
 */
export function typeParam(name: string, constraint: readonly string[] | undefined, fallback?: string): Doc {
  const parts: Doc[] = [name];
  if (constraint) {
    const id = Symbol("constraint");
    const union = group(indent([softline, group([ifBreak("| "), join([line, "| "], constraint)])]));
    parts.push(" extends", group(indent(line), id), indentIfBreak(constraint.length > 1 ? union : constraint[0], id));
  }
  if (fallback !== undefined) {
    const id = Symbol("default");
    parts.push(" =", group(indent(line), id), indentIfBreak(fallback, id));
  }
  return group(parts);
}

/** A call; type arguments are given as for {@link typeRef}. */
export function call(callee: string, typeArgs: readonly Doc[], args: readonly Doc[]): Doc {
  return [typeArgs.length > 0 ? typeRef(callee, typeArgs) : callee, list("(", args, ")", true)];
}

/** `key: "string"`: prettier moves a string value under its key rather than overflow (break-after-operator). */
export function stringProperty(key: string, value: string): Doc {
  return [key, ":", group(indent([line, value]))];
}

/** An object literal written on one line, broken one property per line when it does not fit. */
export function object(properties: readonly Doc[]): Doc {
  return group(["{", indent([line, join([",", line], properties)]), ifBreak(","), line, "}"]);
}
