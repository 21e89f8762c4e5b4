/**
 * Name lookups over a schema and type resolution through domains, shared by
 * the validator, the descriptor builder and the backends.
 *
 * Lookups keep the first declaration of a duplicated name; the validator
 * reports the duplicate.
 */
import type { ColumnDecl, DomainDecl, EnumDecl, RefDecl, Schema, TableDecl, TypeRef } from "../language/ir.js";
import type { ValueKind } from "../runtime/descriptor.js";
import { lookupBuiltin, type BuiltinType } from "../language/types.js";
import { placedTypeForCast, placeSql, typeNameForCast } from "./ident.js";

/** What a type name finally denotes once domains are unwrapped. */
export type TypeBase =
  | { kind: "builtin"; type: BuiltinType }
  | { kind: "enum"; decl: EnumDecl }
  /** Neither built-in, enum nor domain (an extension type), or a domain cycle. */
  | { kind: "unknown"; name: string };

/**
 * A column type resolved through its domains. `arrayDims` sums the
 * dimensions written on the column and on every domain on the way.
 */
export interface ResolvedType {
  base: TypeBase;
  /** Domains unwrapped, outermost first. */
  domains: DomainDecl[];
  arrayDims: number;
  /** The runtime value kind of the (element) base type. */
  kind: ValueKind;
  /**
   * Groups types a foreign key may join across (docs/decisions/0203-reference-type-compatibility.md):
   * the built-in family, `enum:<name>` or `other:<name>`, with `[]` per dimension.
   */
  family: string;
  /**
   * The type to cast bind parameters to: the base type, never the domain
   * (a filter value outside a domain's CHECK must match nothing, not fail),
   * modifiers dropped, `[]` per dimension.
   */
  castType: string;
}

/** Lookups by name over one schema. */
export class SchemaIndex {
  readonly schema: Schema;
  readonly tables = new Map<string, TableDecl>();
  readonly enums = new Map<string, EnumDecl>();
  readonly domains = new Map<string, DomainDecl>();

  constructor(schema: Schema) {
    this.schema = schema;
    for (const table of schema.tables) if (!this.tables.has(table.name)) this.tables.set(table.name, table);
    for (const e of schema.enums) if (!this.enums.has(e.name)) this.enums.set(e.name, e);
    for (const d of schema.domains) if (!this.domains.has(d.name)) this.domains.set(d.name, d);
  }

  /** The quoted SQL name of the enum or domain `name` (placed by `@map`/`@schema`), or undefined when it is neither. */
  userTypeSql(name: string): string | undefined {
    const decl = this.enums.get(name) ?? this.domains.get(name);
    return decl ? placeSql(decl) : undefined;
  }

  /** A column of a table by name, or undefined. */
  column(table: TableDecl, name: string): ColumnDecl | undefined {
    return table.columns.find((c) => c.name === name);
  }

  /**
   * The table and column a reference points at: the declared `column:`, or
   * else the target's single-column primary key. Undefined when the table,
   * the key or the column is missing (the validator reports which).
   */
  refTarget(ref: RefDecl): { table: TableDecl; column: ColumnDecl } | undefined {
    const table = this.tables.get(ref.target);
    if (!table) return undefined;
    const name = ref.targetColumn ?? (table.primaryKey.length === 1 ? table.primaryKey[0] : undefined);
    const column = name === undefined ? undefined : this.column(table, name);
    return column ? { table, column } : undefined;
  }

  /** Whether `column` alone is a key of `table` (primary key, `@unique`, `@@unique` or a unique index), as a foreign key target must be. */
  isUniqueColumn(table: TableDecl, column: string): boolean {
    const single = (cols: readonly string[]): boolean => cols.length === 1 && cols[0] === column;
    return (
      single(table.primaryKey) ||
      table.columns.some((c) => c.name === column && c.unique) ||
      table.uniques.some(single) ||
      table.indexes.some((i) => i.unique && single(i.columns))
    );
  }

  /**
   * Resolves a type reference through domains. User-declared names win over
   * built-in ones only when the validator allowed the declaration (it
   * refuses an enum or domain shadowing a built-in).
   */
  resolve(ref: TypeRef): ResolvedType {
    const domains: DomainDecl[] = [];
    let dims = ref.arrayDims;
    let name = ref.name;
    for (;;) {
      const builtin = lookupBuiltin(name);
      if (builtin) return this.finish({ kind: "builtin", type: builtin }, domains, dims);
      const e = this.enums.get(name);
      if (e) return this.finish({ kind: "enum", decl: e }, domains, dims);
      const d = this.domains.get(name);
      if (!d || domains.includes(d)) return this.finish({ kind: "unknown", name }, domains, dims);
      domains.push(d);
      dims += d.base.arrayDims;
      name = d.base.name;
    }
  }

  private finish(base: TypeBase, domains: DomainDecl[], arrayDims: number): ResolvedType {
    const suffix = "[]".repeat(arrayDims);
    switch (base.kind) {
      case "builtin":
        return {
          base,
          domains,
          arrayDims,
          kind: base.type.kind,
          family: base.type.family + suffix,
          castType: base.type.cast + suffix,
        };
      case "enum":
        return {
          base,
          domains,
          arrayDims,
          kind: "enum",
          family: `enum:${base.decl.name}${suffix}`,
          castType: placedTypeForCast(base.decl) + suffix,
        };
      case "unknown":
        return {
          base,
          domains,
          arrayDims,
          kind: "other",
          family: `other:${base.name}${suffix}`,
          castType: typeNameForCast(base.name) + suffix,
        };
    }
  }
}
