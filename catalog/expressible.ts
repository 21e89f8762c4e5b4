/**
 * A live database as far as the language can say it: what `resc pull`
 * would describe, and nothing it leaves out. The drift gate (`resc check
 * --database-url`, `resc migrate baseline`) compares this with the schema,
 * so an adopted database passes right after it was pulled: an `ON DELETE`
 * action, a composite or cross-schema foreign key, a partial or expression
 * index, a generated column, a second check on a column, a name the
 * language cannot write are the database's own and never reported as
 * drift, nor offered a statement that would remove them
 * (docs/decisions/1256-pull-hides-secrets.md). `resc migrate diff`
 * compares two states resc built and does not use it.
 */
import { placedKey, type Catalog, type CatalogConstraint, type CatalogTable, type Placed } from "./model.js";
import { nextvalSequence, unwritableIndex, writableUnique } from "./model.js";
import { regclassParts } from "../compiler/backends/sql/sequences.js";
import { nameBook, resourceType } from "./naming.js";

/** `FOREIGN KEY (a) REFERENCES t(id) ON DELETE CASCADE DEFERRABLE` → `FOREIGN KEY (a) REFERENCES t(id)`. */
function referenceOnly(definition: string): string {
  return definition.replace(/\)\s+(MATCH |ON |DEFERRABLE|NOT DEFERRABLE|INITIALLY ).*$/s, ")");
}

/**
 * `live` (read from the namespaces `schemas`) without what the language
 * cannot say, by the rules `resc pull` applies when it writes the file
 * (catalog/render/resource.ts). Every name can be said (`@map`, `@@schema`,
 * docs/decisions/1257-database-names.md); a domain's NOT NULL and default
 * cannot, so they are read as absent.
 */
export function expressibleCatalog(live: Catalog, schemas: readonly string[] = ["public"]): Catalog {
  const described = new Set(schemas);
  const names = nameBook(live);
  const unsaid = new Set(
    live.domains.filter((d) => resourceType(d.type, names.types) === undefined).map((d) => d.spelled),
  );
  const domains = live.domains
    .filter((d) => !unsaid.has(d.spelled))
    .map(({ default: _unsaid, ...d }) => ({ ...d, notNull: false }));
  const kept = new Map([...names.types].filter(([spelled]) => !unsaid.has(spelled)));
  const tableKeys = new Set(live.tables.map((t) => placedKey(t)));
  const tables: CatalogTable[] = [];
  for (const t of live.tables) {
    const columns = t.columns.filter(
      (c) => c.generated === undefined && (c.serial !== undefined || resourceType(c.type, kept) !== undefined),
    );
    const has = new Set(columns.map((c) => c.name));
    const all = (cols: readonly string[]): boolean => cols.length > 0 && cols.every((c) => has.has(c));
    const checked = new Set<string>();
    const constraints: CatalogConstraint[] = [];
    // A foreign key every partition has holds for every row: read as the partitioned table's own.
    for (const k of [...t.constraints, ...(t.partitionForeignKeys ?? [])]) {
      if ((k.kind === "p" || writableUnique(k)) && all(k.columns)) constraints.push(k);
      if (k.kind === "c" && all(k.columns) && !checked.has(k.columns[0]!)) {
        checked.add(k.columns[0]!); // one @check per column, the first by name, as pull writes it
        constraints.push(k);
      }
      const r = k.references;
      if (
        k.kind === "f" &&
        r &&
        k.columns.length === 1 &&
        all(k.columns) &&
        described.has(r.schema) &&
        tableKeys.has(placedKey({ schema: r.schema, name: r.table }))
      )
        constraints.push({ ...k, definition: referenceOnly(k.definition) });
    }
    const indexes = t.indexes.filter((ix) => unwritableIndex(ix) === undefined && all(ix.columns!));
    tables.push({ ...t, columns, constraints, indexes });
  }
  // A standalone sequence is said only through a default that names it (in the search path, or qualified).
  const named = new Set(
    tables.flatMap((t) =>
      t.columns.flatMap((c) => {
        const literal = c.default !== undefined ? nextvalSequence(c.default) : undefined;
        if (literal === undefined) return [];
        const parts = regclassParts(literal);
        const at: Placed = { schema: parts.length > 1 ? parts[0]! : "public", name: parts.at(-1)! };
        return [placedKey(at)];
      }),
    ),
  );
  const sequences = live.sequences.filter((s) => named.has(placedKey(s)));
  return { ...live, domains, tables, sequences };
}
