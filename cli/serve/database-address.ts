/**
 * The address of a PostgreSQL connection string, for logs and `/ready`:
 * where the server is, never who connects or with what password
 * (docs/deploy.md, "Read replicas" and "On the database's host").
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
 * node-postgres connects there. Throws nothing: a string node-postgres
 * cannot read either is shown as `unknown`.
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
