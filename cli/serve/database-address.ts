/**
 * The connection strings `resc serve` is given: whether node-postgres can
 * read one, and its address for `/ready` (where the server is, never who
 * connects or with what password; docs/deploy.md, "Read replicas" and "On
 * the database's host"). Loaded with the command's steps, not at `resc`'s
 * start (decision 1323).
 */
import { parse } from "pg-connection-string";

/** PostgreSQL's port when a connection string gives none. */
const DEFAULT_PORT = "5432";

/**
 * `host:port` of `url` as node-postgres reads it: a TCP host
 * (`db.example:6543`, `[::1]:5432`), or the socket directory of a
 * connection over a Unix-domain socket, whether it is written as
 * `postgres:///app?host=/var/run/postgresql` or percent-encoded in the host
 * (`postgres://app@%2Fvar%2Frun%2Fpostgresql/app`):
 * `/var/run/postgresql:5432`, the port naming the socket file
 * `.s.PGSQL.5432`. A string with no host gives `localhost`, as
 * node-postgres connects there. Throws nothing: a string that is not a
 * URL at all is shown as `unknown` ({@link connectionStringProblem} keeps
 * such strings from reaching it).
 */
export function databaseAddress(url: string): string {
  let host: string | null | undefined;
  let port: string | null | undefined;
  try {
    ({ host, port } = parse(url));
  } catch {
    return "unknown";
  }
  const shown = host === undefined || host === null || host === "" ? "localhost" : host;
  return `${shown.includes(":") ? `[${shown}]` : shown}:${port || DEFAULT_PORT}`;
}

/** The schemes node-postgres reads a connection string in (pg-connection-string); a bare `/dir` is a socket directory. */
const CONNECTION_STRING = /^(postgres|postgresql|socket):/i;

/**
 * Why node-postgres cannot read `url` as a connection string, or undefined
 * when it can: a `postgres://` or `postgresql://` URL (a host, a
 * `%2F`-encoded socket directory or `?host=/dir`), a `socket:` URL, or a
 * socket directory's path. Anything else node-postgres would read as a
 * relative address and try a host named `base`, so `resc serve` refuses it
 * at start, naming `flag`. The text never repeats the string, which may
 * hold a password. Throws nothing.
 */
export function connectionStringProblem(flag: string, url: string): string | undefined {
  if (CONNECTION_STRING.test(url) || url.startsWith("/")) {
    try {
      parse(url);
      return undefined;
    } catch {
      // A scheme, but not a URL (`postgres://[bad`): refused below.
    }
  }
  return `${flag}: not a PostgreSQL connection string (postgres://user@host:5432/db, or postgres:///db?host=/var/run/postgresql for a Unix-domain socket)`;
}
