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
import type { Catalog, CatalogConstraint, CatalogTable } from "../migrate/catalog.js";
import { nextvalSequence } from "../migrate/catalog.js";
import { regclassParts } from "../../compiler/backends/sql/sequences.js";
import { ident, resourceType, typeIdent } from "./render.js";

/** `FOREIGN KEY (a) REFERENCES t(id) ON DELETE CASCADE DEFERRABLE` → `FOREIGN KEY (a) REFERENCES t(id)`. */
function referenceOnly(definition: string): string {
  return definition.replace(/\)\s+(MATCH |ON |DEFERRABLE|NOT DEFERRABLE|INITIALLY ).*$/s, ")");
}

/**
 * `live` (read from namespace `schema`) without what the language cannot
 * say, by the rules `resc pull` applies when it writes the file
 * (cli/pull/render.ts).
 */
export function expressibleCatalog(live: Catalog, schema = "public"): Catalog {
  const enums = live.enums.filter((e) => typeIdent(e.name));
  const userTypes = new Set([...enums.map((e) => e.name), ...live.domains.map((d) => d.name)]);
  const domains = live.domains.filter((d) => typeIdent(d.name) && resourceType(d.type, userTypes) !== undefined);
  const kept = new Set([...enums.map((e) => e.name), ...domains.map((d) => d.name)]);
  const tableNames = new Set(live.tables.map((t) => t.name).filter(ident));
  const tables: CatalogTable[] = [];
  for (const t of live.tables) {
    if (!tableNames.has(t.name)) continue;
    const columns = t.columns.filter(
      (c) =>
        ident(c.name) &&
        c.generated === undefined &&
        (c.serial !== undefined || resourceType(c.type, kept) !== undefined),
    );
    const has = new Set(columns.map((c) => c.name));
    const all = (cols: readonly string[]): boolean => cols.length > 0 && cols.every((c) => has.has(c));
    const checked = new Set<string>();
    const constraints: CatalogConstraint[] = [];
    for (const k of t.constraints) {
      if ((k.kind === "p" || k.kind === "u") && all(k.columns)) constraints.push(k);
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
        r.schema === schema &&
        tableNames.has(r.table)
      )
        constraints.push({ ...k, definition: referenceOnly(k.definition) });
    }
    const indexes = t.indexes.filter((ix) => ix.columns !== undefined && !ix.partial && all(ix.columns));
    tables.push({ ...t, columns, constraints, indexes });
  }
  // A standalone sequence is said only through a default that names it.
  const named = new Set(
    tables.flatMap((t) =>
      t.columns.flatMap((c) => {
        const literal = c.default !== undefined ? nextvalSequence(c.default) : undefined;
        return literal !== undefined ? [regclassParts(literal).at(-1)] : [];
      }),
    ),
  );
  const sequences = live.sequences.filter((s) => named.has(s));
  return { ...live, enums, domains, tables, sequences };
}
