/**
 * The resource descriptions a generated command tree is built from: per
 * served table, its exposed operations and, for each, what the service
 * accepts (spec: Command-line client). Every list comes from the runtime's
 * vocabulary and operator table, so the help says exactly what the service
 * takes and no hidden column is ever a flag (spec: guarantee 2).
 *
 * The shapes are the tree core's own (core/cli.ts), so what the compiler
 * writes is what the emitted `cli.ts` reads.
 */
import type { ColumnDescriptor, ServiceDescriptor, TableDescriptor } from "../../../runtime/descriptor.js";
import { operatorsFor } from "../../../runtime/query/operators.js";
import { vocabulary } from "../../../runtime/query/vocabulary.js";
import { stampedColumns } from "../../../runtime/access/rules.js";
import { resourceName } from "../client/names.js";
import type { ActionSpec, FieldCodec, FieldSpec, FilterSpec, ResourceSpec } from "./core/cli.js";
import { actionCommandName } from "../../actions.js";

export type { ActionSpec, FieldSpec, FilterSpec, ResourceSpec };

/** The SQL type as help shows it: `smallint`, `task_status`, `text[]`; a trailing `?` for nullable. */
function displayType(c: ColumnDescriptor): string {
  return c.sqlType.replace(/"/g, "") + (c.nullable ? ", nullable" : "");
}

function codecOf(c: ColumnDescriptor): FieldCodec {
  if (c.kind === "jsonb" || (c.kind === "other" && c.sqlType.replace(/(\[\])+$/, "") === "json")) return "json";
  if (c.kind === "integer") return "integer";
  if (c.kind === "bigint") return "integer";
  if (c.kind === "float") return "number";
  if (c.kind === "boolean") return "boolean";
  return "text";
}

/** The first sentence of a doc comment, on one line, for help text. */
function firstSentence(doc: string | undefined): string | undefined {
  if (doc === undefined) return undefined;
  const line = doc.replace(/\s+/g, " ").trim();
  const m = /^(.*?[.!?])(\s|$)/.exec(line);
  return (m ? m[1] : line) || undefined;
}

/**
 * The flag of column `c` in a create (`stamped`: the columns the access rules stamp for some roles,
 * required of nobody) or an update command.
 */
function field(c: ColumnDescriptor, create: boolean, stamped: ReadonlySet<string> = new Set()): FieldSpec {
  const f: FieldSpec = { column: c.name, type: displayType(c), codec: codecOf(c) };
  if (c.array) f.array = true;
  if (create && !c.nullable && !c.hasDefault && !stamped.has(c.name)) f.required = true;
  if (!c.array && c.kind === "enum" && c.enumValues) f.values = [...c.enumValues];
  if (!c.array && c.kind === "boolean") f.values = ["true", "false"];
  const d = firstSentence(c.doc);
  if (d !== undefined) f.description = d;
  return f;
}

function columns(table: TableDescriptor, names: readonly string[]): ColumnDescriptor[] {
  return names
    .map((n) => table.columns.find((c) => c.name === n))
    .filter((c): c is ColumnDescriptor => c !== undefined);
}

/** The description of one served table. */
function resourceSpec(table: TableDescriptor): ResourceSpec | undefined {
  const resource = table.resource;
  if (!resource) return undefined;
  const vocab = vocabulary(table);
  const ops = resource.ops;
  const spec: ResourceSpec = { name: resourceName(resource.path), path: resource.path };
  const d = firstSentence(resource.doc ?? table.doc);
  if (d !== undefined) spec.description = d;
  const keyColumn =
    table.primaryKey.length === 1 ? table.columns.find((c) => c.name === table.primaryKey[0]) : undefined;
  if (keyColumn) spec.key = { column: keyColumn.name, type: keyColumn.sqlType.replace(/"/g, "") };
  // A composite key: one argument per key column, in key order (docs/decisions/1376-composite-key-address.md).
  const itemOps = ops.read || ops.update || ops.delete;
  const keyColumns = table.primaryKey.length > 1 && itemOps ? columns(table, table.primaryKey) : [];
  if (keyColumns.length > 1) spec.keys = keyColumns.map((c) => ({ column: c.name, type: c.sqlType.replace(/"/g, "") }));
  const keyed = keyColumn !== undefined || keyColumns.length > 1;
  const expandable = [...vocab.expandable];
  if (ops.list) {
    spec.list = {
      filters: columns(table, vocab.filterable).map((c) => {
        const f: FilterSpec = { column: c.name, type: displayType(c), operators: [...operatorsFor(c)] };
        if (c.kind === "enum" && c.enumValues) f.values = [...c.enumValues];
        // The service refuses a bare value on a document column (runtime/query/leaf.ts); the help must not offer one.
        if (c.kind === "jsonb" && !c.array) f.document = true;
        return f;
      }),
      sortable: [...vocab.sortable],
      selectable: [...vocab.selectable],
      expandable,
      searchable: vocab.searchable.length > 0,
    };
  }
  if (ops.read && keyed) spec.get = { selectable: [...vocab.selectable], expandable };
  if (ops.create) {
    const stamped = stampedColumns(table);
    spec.create = { fields: columns(table, vocab.createWritable).map((c) => field(c, true, stamped)) };
  }
  if (ops.update && keyed) {
    const settable = columns(table, vocab.updateWritable);
    spec.update = {
      fields: settable.map((c) => field(c, false)),
      nullable: settable.filter((c) => c.nullable).map((c) => c.name),
    };
  }
  if (ops.delete && keyed) spec.delete = true;
  // docs/decisions/1333-filtered-writes.md: over the list's filter flags.
  if (table.resource?.filteredWrites && spec.list && (spec.update || spec.delete)) spec.filteredWrites = true;
  // docs/decisions/1337-change-feed.md: `watch`, over the list's filter flags.
  if (table.resource?.events && spec.list) spec.events = true;
  // docs/decisions/1334-declared-actions.md: one command each; input fields are flags, required unless nullable.
  const actions = (resource.actions ?? []).map((a) => {
    const s: ActionSpec = {
      name: a.name,
      command: actionCommandName(a.name),
      target: a.target,
      fields: a.input.map((c) => field(c, true)),
    };
    const d = firstSentence(a.doc);
    if (d !== undefined) s.description = d;
    return s;
  });
  if (actions.length > 0) spec.actions = actions;
  return spec;
}

/** Every served resource of the service, in declaration order. */
export function resourceSpecs(service: ServiceDescriptor): ResourceSpec[] {
  return service.tables.map(resourceSpec).filter((s): s is ResourceSpec => s !== undefined);
}
