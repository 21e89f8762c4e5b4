/**
 * What a request may name on one table: the visible, filterable, sortable,
 * selectable, searchable and writable columns and the expandable relations.
 * Computed once per descriptor and cached, so no request repeats schema work
 * (architecture: descriptors are prepared at mount).
 *
 * Hidden columns appear in none of these lists, so no refusal can spell one
 * (spec: guarantee 2, Column capabilities "Hidden"). Column lists keep the
 * schema's declaration order (docs/decisions/0303-query-parameters.md).
 */
import { servedColumns, type ColumnDescriptor, type TableDescriptor } from "../descriptor.js";

/** The names a request may use on one table, each list in declaration order. */
export interface TableVocabulary {
  /** Visible columns by name: not hidden and, when computed, computed by this resource. */
  readonly visible: ReadonlyMap<string, ColumnDescriptor>;
  /** Visible columns declared Filterable. */
  readonly filterable: readonly string[];
  /** Visible columns declared Sortable. */
  readonly sortable: readonly string[];
  /** Every visible column: what `select` accepts. */
  readonly selectable: readonly string[];
  /** Visible columns declared Searchable: the search fan-out. */
  readonly searchable: readonly string[];
  /** Names of the relations declared Expandable (forward or inverse). */
  readonly expandable: readonly string[];
  /** Fields a create body may carry: visible, not read-only, not computed. */
  readonly createWritable: readonly string[];
  /** Fields an update body may carry: the create fields minus the immutable ones. */
  readonly updateWritable: readonly string[];
  /** Create fields a body must carry: not nullable and without a database default. */
  readonly required: readonly string[];
}

const cache = new WeakMap<TableDescriptor, TableVocabulary>();

function build(table: TableDescriptor): TableVocabulary {
  const visibleCols = servedColumns(table);
  const names = (pred: (c: ColumnDescriptor) => boolean): string[] => visibleCols.filter(pred).map((c) => c.name);
  const writable = (c: ColumnDescriptor): boolean => !c.readOnly && c.computed === undefined;
  return {
    visible: new Map(visibleCols.map((c) => [c.name, c])),
    filterable: names((c) => c.filterable),
    sortable: names((c) => c.sortable),
    selectable: names(() => true),
    searchable: names((c) => c.searchable),
    expandable: table.relations.filter((r) => r.expandable).map((r) => r.name),
    createWritable: names(writable),
    updateWritable: names((c) => writable(c) && !c.immutable),
    required: names((c) => writable(c) && !c.nullable && !c.hasDefault),
  };
}

/** The cached vocabulary of `table`; built on first use. */
export function vocabulary(table: TableDescriptor): TableVocabulary {
  let v = cache.get(table);
  if (!v) {
    v = build(table);
    cache.set(table, v);
  }
  return v;
}

/**
 * The keys an upsert's `on_conflict` may name (docs/decisions/1332-upsert.md):
 * the primary key, then each unique key (`uniqueKeys`), those whose columns
 * are all visible, so a request cannot probe a hidden column. Column names,
 * in declaration order of each key.
 */
export function conflictKeys(table: TableDescriptor): string[][] {
  const visible = vocabulary(table).visible;
  return [table.primaryKey, ...(table.uniqueKeys ?? [])].filter(
    (k) => k.length > 0 && k.every((col) => visible.has(col)),
  );
}
