/**
 * The operations of `access` blocks (docs/decisions/1367-access-rules.md):
 * the named sets an `ops` list may hold expanded, and what a table's
 * blocks say about one operation or one column. Shared by the descriptor
 * builder and the backends that describe access (OpenAPI), so every
 * surface reads the same grants the runtime enforces.
 *
 * The functions take any value shaped like an access block (`roles`, `ops`,
 * `hide`): the IR's `AccessDecl`, whose `ops` are as written, and the
 * runtime's `AccessDescriptor`, whose `ops` are already expanded (expanding
 * them again changes nothing).
 */

/** The row operations a grant may name one by one, in their canonical order. */
export const ROW_OPERATIONS = ["list", "read", "create", "update", "delete"] as const;

/** A row operation: {@link ROW_OPERATIONS}. */
export type RowOperation = (typeof ROW_OPERATIONS)[number];

/** The operation that grants following a table's feed and owning webhooks on it. */
export const EVENTS_OPERATION = "events";

/**
 * The named sets of an `ops` list and what they stand for
 * (docs/decisions/1367-access-rules.md): `reads` is list and read, `crud`
 * is read, create, update and delete (as in a resource's `ops`), `all` is
 * every row operation and `events`; `all` also grants every declared
 * action, which {@link expandAccessOps} adds from the table's action names.
 */
export const ACCESS_OP_SETS: Readonly<Record<"reads" | "crud" | "all", readonly string[]>> = {
  reads: ["list", "read"],
  crud: ["read", "create", "update", "delete"],
  all: [...ROW_OPERATIONS, EVENTS_OPERATION],
};

function isOpSet(op: string): op is keyof typeof ACCESS_OP_SETS {
  return Object.hasOwn(ACCESS_OP_SETS, op);
}

/** What an access block is as far as its grants go: both `AccessDecl` and `AccessDescriptor` are one. */
export interface AccessGrant {
  readonly roles: readonly string[];
  readonly ops: readonly string[];
  readonly hide: readonly string[];
}

/**
 * An `ops` list with its named sets expanded (docs/decisions/1367-access-rules.md),
 * duplicates removed: the row operations in the order list, read, create,
 * update, delete, then the action names in the order `actions` gives them,
 * then `events`. A name that is neither a set, a row operation, `events` nor
 * one of `actions` is kept after them as written (the validator reports it).
 * @param ops the list as written (`[reads, create, events, close]`)
 * @param actions the names of the table's declared actions, which `all` grants
 */
export function expandAccessOps(ops: readonly string[], actions: readonly string[] = []): string[] {
  const named = new Set<string>();
  for (const op of ops) {
    if (op === "all") for (const a of actions) named.add(a);
    if (isOpSet(op)) for (const o of ACCESS_OP_SETS[op]) named.add(o);
    else named.add(op);
  }
  const rows: string[] = ROW_OPERATIONS.filter((o) => named.has(o));
  const acts = actions.filter((a) => named.has(a));
  const events = named.has(EVENTS_OPERATION) ? [EVENTS_OPERATION] : [];
  const known = new Set<string>([...rows, ...acts, ...events]);
  return [...rows, ...acts, ...events, ...[...named].filter((o) => !known.has(o))];
}

/**
 * The roles `blocks` grant `op` (a row operation, `events` or an action's
 * name), each once, in the order the blocks name them
 * (docs/decisions/1367-access-rules.md). Empty: no role may use it.
 * @param actions the table's action names, for blocks whose `ops` say `all`
 */
export function rolesGranted(blocks: readonly AccessGrant[], op: string, actions: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    if (!expandAccessOps(b.ops, actions).includes(op)) continue;
    for (const r of b.roles) if (!out.includes(r)) out.push(r);
  }
  return out;
}

/**
 * The roles a column is hidden from (docs/decisions/1367-access-rules.md):
 * a principal sees a column unless every block granting it hides it, so a
 * role is listed when every block naming it hides `column`. Roles in block
 * order, each once.
 */
export function rolesHiding(blocks: readonly AccessGrant[], column: string): string[] {
  const out: string[] = [];
  const roles: string[] = [];
  for (const b of blocks) for (const r of b.roles) if (!roles.includes(r)) roles.push(r);
  for (const r of roles) {
    const naming = blocks.filter((b) => b.roles.includes(r));
    if (naming.every((b) => b.hide.includes(column))) out.push(r);
  }
  return out;
}
