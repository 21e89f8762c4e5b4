/**
 * A compiled schema projected straight into the catalog model, without a scratch database: what the presence-only
 * comparison of the live schema check needs (docs/decisions/1375-catalog-room.md). It holds names, by database
 * names (`@map`, `@@map`, `@@schema`; docs/decisions/1257-database-names.md): the enums and their values, the
 * domains, the tables with their stored columns (computed ones are expressions, not columns), their indexes by
 * method and columns, and the change feed's capture of a table declaring `events`, with the outbox when one does.
 * Types are the language's PostgreSQL spellings (language/types.ts) and nullability as declared; defaults,
 * constraints and sequences are left out. The full comparisons (drift gate, `migrate diff`) project through the
 * scratch database instead (`scratch.ts`), where PostgreSQL spells every part.
 */
import { lookupBuiltin } from "../../language/types.js";
import { storedColumns, type Schema, type TypeRef } from "../../language/ir.js";
import { EVENTS_TABLE } from "../../runtime/own-objects.js";
import type { Catalog, CatalogIndex, CatalogTable, Placed } from "../model.js";

/** Where a declaration lives in the model: its `@schema` namespace, else `public` (the search path's). */
function placed(d: { name: string; dbName?: string; schema?: string }): Placed {
  return { schema: d.schema ?? "public", name: d.dbName ?? d.name };
}

/** A column type as the language spells it in DDL: a built-in's PostgreSQL name, else the user type's name. */
function spelled(type: TypeRef, userTypes: ReadonlyMap<string, string>): string {
  const base = lookupBuiltin(type.name)?.name ?? userTypes.get(type.name) ?? type.name;
  const args = type.args.length > 0 ? `(${type.args.join(",")})` : "";
  return `${base}${args}${"[]".repeat(type.arrayDims)}`;
}

const projections = new WeakMap<Schema, Catalog>();

/**
 * The catalog `schema` declares, for {@link diffCatalogs}'s presence-only mode. Made once per schema object and
 * kept (`resc serve`'s /ready asks on every probe): the result is shared and must not be changed.
 */
export function declaredCatalog(schema: Schema): Catalog {
  const known = projections.get(schema);
  if (known !== undefined) return known;
  const userTypes = new Map([...schema.enums, ...schema.domains].map((d) => [d.name, d.dbName ?? d.name]));
  const tables: CatalogTable[] = schema.tables.map((t) => {
    const columns = storedColumns(t);
    const dbColumn = (name: string): string => columns.find((c) => c.name === name)?.dbName ?? name;
    const indexes = t.indexes.map((ix): CatalogIndex => {
      const cols = ix.columns.map(dbColumn);
      const method = ix.using ?? "btree";
      return {
        name: ix.name ?? "",
        shape: `USING ${method} (${cols.join(", ")})`,
        definition: "",
        method,
        unique: ix.unique,
        columns: cols,
        partial: false,
      };
    });
    const table: CatalogTable = {
      ...placed(t),
      columns: columns
        .filter((c) => c.computed === undefined)
        .map((c) => ({ name: c.dbName ?? c.name, type: spelled(c.type, userTypes), notNull: !c.nullable })),
      constraints: [],
      indexes,
    };
    if (t.resource?.events) table.capture = t.name;
    return table;
  });
  // The outbox is resc's own table (runtime/own-objects.ts): asked for only when a resource declares `events`.
  if (schema.tables.some((t) => t.resource?.events))
    tables.push({ schema: "public", name: EVENTS_TABLE, columns: [], constraints: [], indexes: [] });
  const catalog: Catalog = {
    enums: schema.enums.map((e) => ({ ...placed(e), spelled: placed(e).name, values: [...e.values] })),
    domains: schema.domains.map((d) => ({
      ...placed(d),
      spelled: placed(d).name,
      type: spelled(d.base, userTypes),
      notNull: false,
      checks: [],
      checkNames: [],
    })),
    tables,
    sequences: [],
    extensions: [],
  };
  projections.set(schema, catalog);
  return catalog;
}
