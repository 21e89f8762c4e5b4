/**
 * Document symbols (the outline): the api, auth and generate blocks, enums,
 * domains, and tables with their columns, resource block and access blocks
 * (docs/decisions/1367-access-rules.md), from the IR's spans.
 */
import { SymbolKind, type DocumentSymbol } from "vscode-languageserver";
import type { Schema, Span } from "../../language/ir.js";
import { nameSpanOf } from "./resolve.js";
import { typeText } from "./describe.js";
import { toRange } from "./positions.js";

function symbol(
  name: string,
  kind: SymbolKind,
  span: Span,
  selection: Span,
  detail?: string,
  children?: DocumentSymbol[],
): DocumentSymbol {
  const out: DocumentSymbol = { name, kind, range: toRange(span), selectionRange: toRange(selection) };
  if (detail !== undefined) out.detail = detail;
  if (children !== undefined) out.children = children;
  return out;
}

/** The outline of a schema, in source order. */
export function documentSymbols(schema: Schema): DocumentSymbol[] {
  const out: DocumentSymbol[] = [];
  if (schema.api) out.push(symbol("api", SymbolKind.Namespace, schema.api.span, schema.api.span, schema.api.title));
  if (schema.auth)
    out.push(symbol("auth", SymbolKind.Namespace, schema.auth.span, schema.auth.span, schema.auth.roles.join(", ")));
  if (schema.generate)
    out.push(symbol("generate", SymbolKind.Namespace, schema.generate.span, schema.generate.span, schema.generate.dir));
  for (const e of schema.enums) out.push(symbol(e.name, SymbolKind.Enum, e.span, e.span, e.values.join(" ")));
  for (const d of schema.domains) out.push(symbol(d.name, SymbolKind.TypeParameter, d.span, d.span, d.base.name));
  for (const t of schema.tables) {
    const children = t.columns.map((c) => symbol(c.name, SymbolKind.Field, c.span, nameSpanOf(c), typeText(c)));
    if (t.resource)
      children.push(
        symbol(t.resource.path, SymbolKind.Interface, t.resource.span, t.resource.span, t.resource.ops.join(", ")),
      );
    for (const a of t.access)
      children.push(symbol(`access ${a.roles.join(", ")}`, SymbolKind.Key, a.span, a.span, a.ops.join(", ")));
    out.push(
      symbol(t.name, SymbolKind.Class, t.span, t.nameSpan, t.resource ? t.resource.path : "not served", children),
    );
  }
  return out.sort(
    (a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character,
  );
}
