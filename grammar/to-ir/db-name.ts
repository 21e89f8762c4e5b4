/**
 * `@map("…")`, `@@map("…")`, `@schema("…")` and `@@schema("…")`: where a
 * declaration lives in the database when its name in the file (the name the
 * API, the client, the CLI and hooks use) is not its name there
 * (docs/decisions/1257-database-names.md). The argument is the name exactly
 * as PostgreSQL stores it, case and all; resc always quotes it.
 */
import type { Ctx } from "./context.js";
import { requirePositional, splitArgs, type AttrUse } from "./args.js";
import { expectString } from "./expect.js";

/** PostgreSQL keeps at most 63 bytes of an identifier (NAMEDATALEN - 1) and silently cuts the rest. */
export const MAX_IDENTIFIER_BYTES = 63;

const UTF8 = new TextEncoder();

/**
 * The database name one `@map`/`@schema` use gives, or undefined after
 * reporting `invalid-argument` when it is not one non-empty string without
 * a NUL character of at most {@link MAX_IDENTIFIER_BYTES} UTF-8 bytes (a
 * longer one would name a different, truncated object).
 */
export function readDatabaseName(use: AttrUse, ctx: Ctx): string | undefined {
  const usage = `${use.written}("Name")`;
  const a = splitArgs(use, [], 1, usage, ctx);
  if (!requirePositional(use, a, 1, usage, ctx)) return undefined;
  const arg = a.positional[0]!;
  const name = expectString(arg.value, { what: use.written, code: "invalid-argument" }, ctx);
  if (name === undefined) return undefined;
  const bytes = UTF8.encode(name).length;
  const why =
    name === ""
      ? "is empty"
      : name.includes("\u0000")
        ? "contains a NUL character"
        : bytes > MAX_IDENTIFIER_BYTES
          ? `is ${bytes} bytes long; PostgreSQL keeps ${MAX_IDENTIFIER_BYTES}`
          : undefined;
  if (why !== undefined) {
    ctx.error("invalid-argument", `The database name in ${use.written} ${why}`, arg.span);
    return undefined;
  }
  return name;
}
