/**
 * The service as one principal's roles see it (docs/decisions/1367-access-rules.md):
 * a column a role may not read is Hidden for it in every sense the spec
 * gives Hidden (never served, projected, filtered, sorted, expanded or
 * written), and a column the rules stamp is read-only. The handlers run on
 * the view's descriptors, so every refusal and `allowed` list follows.
 */
import { servedColumns, type ServiceDescriptor, type TableDescriptor } from "../descriptor.js";
import type { Principal } from "../auth/principal.js";
import { hiddenFor, stampsOf } from "./rules.js";

/** The key of a principal's view: its roles, sorted (the rules depend on nothing else). */
export function viewKey(principal: Principal): string {
  return [...principal.roles].sort().join("\u0000");
}

/** Whether any table's rules hide or stamp a column: only then do views differ from the service. */
export function viewsDiffer(service: ServiceDescriptor): boolean {
  return service.tables.some((t) => (t.access ?? []).some((a) => a.hide.length > 0 || a.stamps.length > 0));
}

/** The tables of views that hide a column their service's own table shows. */
const narrowed = new WeakSet<TableDescriptor>();

/**
 * The columns a change of `table` carries for a subscriber on a view that
 * hides some: its visible stored columns and the computed ones its resource
 * computes. Undefined for a table no rule narrowed (the feed's own default,
 * every visible column, is right). The feed and webhooks judge changes on the
 * service's own descriptors, so a narrowed view must say what it may see.
 */
export function viewSelect(table: TableDescriptor): string[] | undefined {
  if (!narrowed.has(table)) return undefined;
  return servedColumns(table).map((c) => c.name);
}

function tableView(table: TableDescriptor, principal: Principal): TableDescriptor {
  const hidden = hiddenFor(table, principal);
  // Only the columns this principal's own grants stamp: a role that stamps nothing may write them.
  const stamped = new Set(Object.keys(stampsOf(table, principal)));
  if (hidden.size === 0 && stamped.size === 0) return table;
  const view: TableDescriptor = {
    ...table,
    columns: table.columns.map((c) => {
      const hide = hidden.has(c.name) && !c.hidden;
      const stamp = stamped.has(c.name) && !c.readOnly;
      if (!hide && !stamp) return c;
      return {
        ...c,
        ...(hide ? { hidden: true, filterable: false, sortable: false, searchable: false } : {}),
        ...(stamp ? { readOnly: true } : {}),
      };
    }),
    // A relation through a hidden column is not offered either.
    relations: table.relations.filter((r) => !(r.kind === "forward" && hidden.has(r.column))),
  };
  // A default order by a hidden column would tell its values through the order and the cursor's sort key.
  if (view.resource && view.resource.defaultSort.some((t) => hidden.has(t.column)))
    view.resource = { ...view.resource, defaultSort: view.resource.defaultSort.filter((t) => !hidden.has(t.column)) };
  if ([...hidden].some((name) => table.columns.some((c) => c.name === name && !c.hidden))) narrowed.add(view);
  return view;
}

/**
 * The descriptors of `service` as `principal` sees them, made once per set
 * of roles and kept in `cache`. Tables whose rules change nothing for it are
 * the service's own objects, so caches keyed by a descriptor keep working.
 */
export function serviceView(
  service: ServiceDescriptor,
  principal: Principal,
  cache: Map<string, ServiceDescriptor>,
): ServiceDescriptor {
  const key = viewKey(principal);
  let view = cache.get(key);
  if (view === undefined) {
    view = { ...service, tables: service.tables.map((t) => tableView(t, principal)) };
    cache.set(key, view);
  }
  return view;
}
