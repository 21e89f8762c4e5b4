/**
 * `resc serve` on the database's host, connected over PostgreSQL's
 * Unix-domain socket (docs/deploy.md, "On the database's host"): both ways
 * of writing such a connection string serve reads and writes, the
 * connections really are socket connections (no client address in
 * `pg_stat_activity`), and `/ready` names a replica reached that way by its
 * socket directory and port, never by an empty or percent-encoded host.
 * Skipped, saying so, when the test server's socket is not on this machine
 * (a server in a container or elsewhere). A string node-postgres cannot
 * read as a connection string stops the start, naming the flag and never
 * the string.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionStringProblem, databaseAddress } from "../../cli/serve/database-address.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { runNode } from "../support/run.js";
import { startServe, type ServeProcess } from "../support/serve-process.js";
import { compileFile } from "../support/service.js";

const FILE = "test/faults/fixtures/faults.resource";
const db: TestDatabase = await createTestDatabase("unixsock");

/** The directory and port of the test server's socket, when that socket is a file on this machine. */
async function localSocket(): Promise<{ dir: string; port: string } | undefined> {
  if (db.kind !== "pg") return undefined;
  const { rows } = await db.executor.query({
    text: "SELECT split_part(current_setting('unix_socket_directories'), ',', 1) AS dir, current_setting('port') AS port",
    values: [],
  });
  const dir = rows[0]?.dir?.trim();
  const port = rows[0]?.port;
  if (!dir || !port || dir.startsWith("@")) return undefined;
  return existsSync(path.join(dir, `.s.PGSQL.${port}`)) ? { dir, port } : undefined;
}

const socket = await localSocket();
if (db.kind === "pg" && socket === undefined)
  console.warn("unix-socket.test.ts: skipped, the test server's Unix-domain socket is not on this machine");

/** The test database's user and name, from its TCP connection string. */
function userAndDatabase(): { user: string; database: string } {
  const u = new URL(db.url!);
  return { user: decodeURIComponent(u.username), database: decodeURIComponent(u.pathname.slice(1)) };
}

let serve: ServeProcess | undefined;

afterAll(async () => {
  await serve?.stop();
  await db.drop();
});

describe.skipIf(socket === undefined)("resc serve over the Unix-domain socket", () => {
  let queryForm = "";
  let encodedForm = "";

  beforeAll(async () => {
    const { ddl } = await compileFile(FILE);
    await db.executor.script(ddl + "\nINSERT INTO pins (label) VALUES ('a');");
    const { user, database } = userAndDatabase();
    const { dir, port } = socket!;
    // The two forms libpq and node-postgres read: the directory as a `host` parameter, or percent-encoded as the host.
    const as = user === "" ? "" : `&user=${encodeURIComponent(user)}`;
    queryForm = `postgres:///${encodeURIComponent(database)}?host=${encodeURIComponent(dir)}&port=${port}${as}`;
    encodedForm = `postgres://${user === "" ? "" : `${encodeURIComponent(user)}@`}${encodeURIComponent(dir)}:${port}/${encodeURIComponent(database)}`;
    serve = await startServe(FILE, ["--database-url", queryForm, "--read-database-url", encodedForm]);
  }, 60_000);

  it("reads and writes over socket connections", async () => {
    const created = await fetch(`${serve!.base}/pins`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ label: "over the socket" }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    // The read goes to the "replica" (the same server through the other form of the address).
    const read = await fetch(`${serve!.base}/pins/${id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ label: "over the socket" });
    const list = await fetch(`${serve!.base}/pins?label=eq.a`);
    expect(((await list.json()) as { items: unknown[] }).items).toHaveLength(1);

    // The service's connections came through the socket (no client address). This suite's own come over TCP, or
    // the count below would prove nothing.
    const own = await db.executor.query({
      text: "SELECT client_addr IS NOT NULL AS tcp FROM pg_stat_activity WHERE pid = pg_backend_pid()",
      values: [],
    });
    expect(String(own.rows[0]!.tcp)).toMatch(/^t(rue)?$/);
    const { rows } = await db.executor.query({
      text: `SELECT count(*) AS socket FROM pg_stat_activity
              WHERE datname = current_database() AND backend_type = 'client backend' AND client_addr IS NULL`,
      values: [],
    });
    expect(Number(rows[0]!.socket)).toBeGreaterThanOrEqual(2);
  });

  it("names the replica in /ready by its socket directory and port", async () => {
    const res = await fetch(`${serve!.base}/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { replicas: { name: string; up: boolean }[] };
    const { dir, port } = socket!;
    expect(body.replicas).toEqual([expect.objectContaining({ name: `${dir}:${port}`, up: true })]);
    // Both forms give the same address, and neither shows the user.
    expect(databaseAddress(queryForm)).toBe(`${dir}:${port}`);
    expect(databaseAddress(encodedForm)).toBe(`${dir}:${port}`);
  });
});

describe.skipIf(db.kind !== "pg")("resc serve given a string that is not a connection string", () => {
  it("refuses to start, naming the flag and not repeating the string", async () => {
    const r = await runNode(
      ["bin/resc.js", "serve", FILE, "--database-url", db.url!, "--read-database-url", "app:secret@db.example/app"],
      { timeout: 60_000 },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--read-database-url: not a PostgreSQL connection string/);
    expect(r.stderr).not.toContain("secret");
  });
});

describe("connectionStringProblem", () => {
  it("accepts what node-postgres reads, and refuses the rest", () => {
    for (const ok of [
      "postgres://app:secret@db.example:6543/app",
      "postgresql://app@db.example/app",
      "postgres:///app?host=/var/run/postgresql",
      "postgres://app@%2Fvar%2Frun%2Fpostgresql/app",
      "socket:/var/run/postgresql?db=app",
      "/var/run/postgresql",
    ])
      expect(connectionStringProblem("--database-url", ok)).toBeUndefined();
    for (const bad of ["app:secret@db.example/app", "db.example", "postgres://[bad", ""])
      expect(connectionStringProblem("--database-url", bad)).toMatch(
        /^--database-url: not a PostgreSQL connection string/,
      );
  });
});

describe("databaseAddress", () => {
  it("shows where a TCP server is, never the credentials", () => {
    expect(databaseAddress("postgres://app:secret@db.example:6543/app")).toBe("db.example:6543");
    expect(databaseAddress("postgresql://app@db.example/app")).toBe("db.example:5432");
    expect(databaseAddress("postgres://app@[::1]/app")).toBe("[::1]:5432");
    expect(databaseAddress("postgres://app@db.example/app?port=7000")).toBe("db.example:7000");
    expect(databaseAddress("postgres:///app")).toBe("localhost:5432");
    expect(databaseAddress("postgres://app:secret@db.example/app")).not.toContain("secret");
  });

  it("shows a socket directory, however it is written", () => {
    expect(databaseAddress("postgres:///app?host=/var/run/postgresql")).toBe("/var/run/postgresql:5432");
    expect(databaseAddress("postgres://app:secret@%2Fvar%2Frun%2Fpostgresql/app")).toBe("/var/run/postgresql:5432");
    expect(databaseAddress("postgres://app@%2Ftmp:5433/app")).toBe("/tmp:5433");
  });
});
