/**
 * References and relations (spec: Column capabilities, Ref and Inverse):
 * a `@ref` points at an existing table and a key column of compatible type;
 * `@inverse` only rides on a `@ref` (inverse options without an inverse
 * relation are refused); relation names are declared, unique among the
 * relations of the table they are reached from, and never a column name
 * there, because `expand=` and projection share one namespace.
 */
import type { Span, TableDecl } from "../../language/ir.js";
import { withHint, attributeSpan, qualified, typeText, type ValidationContext } from "./context.js";

/** A relation as seen from the table it is expanded on. */
interface NamedRelation {
  name: string;
  kind: "forward" | "inverse";
  /** Where it was declared: the `@ref` or the `@inverse`. */
  span: Span;
  /** The declaring column, `table.column`. */
  declaredOn: string;
}

function checkReferences(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    for (const column of table.columns) {
      const name = qualified(table, column.name);
      if (column.inverse && !column.ref) {
        ctx.error(
          "inverse-without-ref",
          `@inverse on "${name}" needs a @ref on the same column: an inverse relation is the reverse of a reference`,
          attributeSpan(column, "inverse"),
        );
      }
      const ref = column.ref;
      if (!ref) continue;
      const target = ctx.index.tables.get(ref.target);
      if (!target) {
        ctx.error(
          "unknown-ref-target",
          withHint(
            `@ref on "${name}" names table "${ref.target}", which is not declared`,
            ref.target,
            ctx.index.tables.keys(),
          ),
          ref.span,
        );
        continue;
      }
      if (ref.targetColumn === undefined && target.primaryKey.length !== 1) {
        const why =
          target.primaryKey.length === 0
            ? `table "${target.name}" has no primary key`
            : `table "${target.name}" has a composite primary key (${target.primaryKey.join(", ")})`;
        ctx.error(
          "ref-target-column-required",
          `@ref on "${name}" must name the referenced column with "column:": ${why}`,
          ref.span,
        );
        continue;
      }
      const resolved = ctx.index.refTarget(ref);
      if (!resolved) {
        ctx.error(
          "unknown-ref-column",
          withHint(
            `@ref on "${name}" names column "${ref.targetColumn ?? ""}", which is not a column of table "${target.name}"`,
            ref.targetColumn ?? "",
            target.columns.map((c) => c.name),
          ),
          ref.span,
        );
        continue;
      }
      const targetName = qualified(target, resolved.column.name);
      if (resolved.column.computed !== undefined) {
        ctx.error(
          "ref-target-computed",
          `@ref on "${name}" points at computed column "${targetName}", which is not stored`,
          ref.span,
        );
      } else if (!ctx.index.isUniqueColumn(target, resolved.column.name)) {
        ctx.error(
          "ref-target-not-unique",
          `@ref on "${name}" points at "${targetName}", which is neither the primary key nor unique`,
          ref.span,
        );
      }
      const mine = ctx.index.resolve(column.type);
      const theirs = ctx.index.resolve(resolved.column.type);
      if (mine.family !== theirs.family) {
        ctx.error(
          "ref-type-mismatch",
          `"${name}" has type "${typeText(column.type)}" but references "${targetName}" of type "${typeText(resolved.column.type)}"`,
          ref.span,
        );
      }
    }
  }
}

/**
 * Inverse relations by the table their reference targets, gathered in one
 * pass so the name checks stay linear in the schema's size (bench/COMPILER.md).
 */
function inversesByTarget(ctx: ValidationContext): Map<string, NamedRelation[]> {
  const out = new Map<string, NamedRelation[]>();
  for (const child of ctx.index.schema.tables) {
    for (const column of child.columns) {
      if (!column.ref || !column.inverse) continue;
      const rel: NamedRelation = {
        name: column.inverse.name,
        kind: "inverse",
        span: column.inverse.span,
        declaredOn: qualified(child, column.name),
      };
      const list = out.get(column.ref.target);
      if (list) list.push(rel);
      else out.set(column.ref.target, [rel]);
    }
  }
  return out;
}

/** Forward relations of `table` and its inverse relations (`inverses`), in source order. */
function relationsOf(table: TableDecl, inverses: readonly NamedRelation[]): NamedRelation[] {
  const out: NamedRelation[] = [];
  for (const column of table.columns) {
    if (column.ref) {
      out.push({
        name: column.ref.relation,
        kind: "forward",
        span: column.ref.span,
        declaredOn: qualified(table, column.name),
      });
    }
  }
  out.push(...inverses);
  return out.sort((a, b) =>
    a.span.file < b.span.file ? -1 : a.span.file > b.span.file ? 1 : a.span.offset - b.span.offset,
  );
}

function checkRelationNames(ctx: ValidationContext): void {
  const inverses = inversesByTarget(ctx);
  for (const table of ctx.index.schema.tables) {
    if (ctx.index.tables.get(table.name) !== table) continue;
    const seen = new Map<string, NamedRelation>();
    for (const rel of relationsOf(table, inverses.get(table.name) ?? [])) {
      if (ctx.index.column(table, rel.name)) {
        ctx.error(
          "relation-name-collides-with-column",
          `${rel.kind} relation "${rel.name}" (declared on "${rel.declaredOn}") has the name of column "${qualified(table, rel.name)}"`,
          rel.span,
        );
      }
      const first = seen.get(rel.name);
      if (first) {
        ctx.error(
          "duplicate-relation-name",
          `table "${table.name}" already has ${first.kind === "inverse" ? "an" : "a"} ${first.kind} relation "${rel.name}" (declared on "${first.declaredOn}")`,
          rel.span,
        );
      } else {
        seen.set(rel.name, rel);
      }
    }
  }
}

/**
 * Reports `inverse-without-ref`, `unknown-ref-target`, `ref-target-column-required`,
 * `unknown-ref-column`, `ref-target-not-unique`, `ref-type-mismatch`,
 * `relation-name-collides-with-column` and `duplicate-relation-name`.
 */
export function checkRelations(ctx: ValidationContext): void {
  checkReferences(ctx);
  checkRelationNames(ctx);
}
