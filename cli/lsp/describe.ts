/**
 * Markdown descriptions of the things a schema declares (tables, columns,
 * relations, enums, domains), for hover and completion details. The words
 * for capabilities and types come from `reference.ts`.
 */
import type { ColumnDecl, DomainDecl, EnumDecl, Schema, TableDecl } from "../../language/ir.js";
import { TYPE_DOCS } from "../../grammar/textmate/reference.js";

/** A column's type as written in the language: `numeric(6,2)[]?`. */
export function typeText(c: Pick<ColumnDecl, "type" | "nullable">): string {
  const args = c.type.args.length > 0 ? `(${c.type.args.join(",")})` : "";
  return `${c.type.name}${args}${"[]".repeat(c.type.arrayDims)}${c.nullable ? "?" : ""}`;
}

/** What the column may do over HTTP, in the spec's words (Column capabilities). */
export function capabilities(c: ColumnDecl): string[] {
  const out: string[] = [];
  if (c.primaryKey) out.push("primary key");
  if (c.filterable) out.push("filterable");
  if (c.sortable) out.push(c.sortable.nulls ? `sortable (nulls ${c.sortable.nulls})` : "sortable");
  if (c.searchable) out.push("searchable");
  if (c.hidden) out.push("hidden");
  if (c.readOnly) out.push("read-only");
  if (c.immutable) out.push("immutable");
  if (c.default) out.push("default");
  if (c.computed !== undefined) out.push("computed");
  if (c.softDelete) out.push("soft delete");
  if (c.unique) out.push("unique");
  return out;
}

/** Hover text of a column. */
export function columnSummary(t: TableDecl, c: ColumnDecl): string {
  const parts = ["```resource\n" + `${t.name}.${c.name} ${typeText(c)}` + "\n```"];
  const caps = capabilities(c);
  parts.push(caps.length > 0 ? caps.join(", ") : "not filterable, sortable or searchable");
  if (c.ref) parts.push(forwardRelation(t, c));
  if (c.doc) parts.push(c.doc);
  return parts.join("\n\n");
}

/** The forward relation a `@ref` column forms. */
export function forwardRelation(t: TableDecl, c: ColumnDecl): string {
  const r = c.ref!;
  const target = `${r.target}.${r.targetColumn ?? "id"}`;
  const expand = r.expandable
    ? `expandable: \`?expand=${r.relation}\` returns the ${r.target} row under \`${r.relation}\``
    : "not expandable";
  return `Forward relation **${r.relation}**: \`${t.name}.${c.name}\` → \`${target}\`; ${expand}.`;
}

/** The inverse relation an `@inverse` on column `c` of `t` declares on the target table. */
export function inverseRelation(t: TableDecl, c: ColumnDecl): string {
  const inv = c.inverse!;
  const target = c.ref?.target ?? "?";
  const base = `Inverse relation **${inv.name}** on \`${target}\`: the ${t.name} rows whose \`${c.name}\` points at it.`;
  if (!inv.expandable) return `${base} Not expandable.`;
  const order = inv.order.map((o) => (o.descending ? `-${o.column}` : o.column)).join(", ");
  return `${base} Expandable: \`?expand=${inv.name}\` on ${target} returns \`{ items, has_more }\`, at most ${inv.limit ?? 50} children${order ? `, ordered by ${order}` : ""}.`;
}

/** Hover text of a table. */
export function tableSummary(t: TableDecl): string {
  const served = t.resource
    ? `served at \`${t.resource.path}\` (${t.resource.ops.join(", ") || "no operations"})`
    : "not served";
  const parts = [
    "```resource\n" + `table ${t.name}` + "\n```",
    `${t.columns.length} columns, primary key (${t.primaryKey.join(", ")}), ${served}.`,
  ];
  if (t.doc) parts.push(t.doc);
  return parts.join("\n\n");
}

/** Hover text of an enum. */
export function enumSummary(e: EnumDecl): string {
  return [
    "```resource\n" + `enum ${e.name}` + "\n```",
    `Values: ${e.values.map((v) => `\`${v}\``).join(", ")}.`,
    e.doc ?? "",
  ]
    .filter((x) => x)
    .join("\n\n");
}

/** Hover text of a domain. */
export function domainSummary(d: DomainDecl): string {
  return [
    "```resource\n" + `domain ${d.name} ${d.base.name}` + "\n```",
    d.check !== undefined ? `CHECK (${d.check})` : "",
    TYPE_DOCS[d.base.name] ?? "",
    d.doc ?? "",
  ]
    .filter((x) => x)
    .join("\n\n");
}

/** Hover text of a type name (built-in, enum or domain). */
export function typeSummary(schema: Schema, name: string): string | undefined {
  const e = schema.enums.find((x) => x.name === name);
  if (e) return enumSummary(e);
  const d = schema.domains.find((x) => x.name === name);
  if (d) return domainSummary(d);
  const doc = TYPE_DOCS[name];
  return doc === undefined ? undefined : "```resource\n" + name + "\n```\n\n" + doc;
}
