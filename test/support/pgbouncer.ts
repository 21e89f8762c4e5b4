/**
 * A PgBouncer of the test's own (Debian's `pgbouncer` package) in
 * transaction mode in front of a PostgreSQL server, on a free port, in a
 * temporary directory; PgBouncer refuses to run as root, so as root it
 * runs as `postgres` (docs/decisions/1301-pgbouncer.md).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./ports.js";

/** The pgbouncer binary, or undefined where it is not installed. */
export const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((p) => existsSync(p));

/** `[major, minor]` of a pgbouncer binary (`PgBouncer 1.24.1` on its first line), or undefined when it does not run. */
function versionOf(binary: string): [number, number] | undefined {
  try {
    const m = /PgBouncer (\d+)\.(\d+)/.exec(execFileSync(binary, ["--version"], { encoding: "utf8" }));
    return m ? [Number(m[1]), Number(m[2])] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where `.ci/run` builds PgBouncer 1.24 from Debian 13's source package when
 * the machine's own is older (Debian 12 ships 1.18).
 */
export const BUILT_PGBOUNCER = "/opt/pgbouncer-1.24.1/bin/pgbouncer";

/**
 * A pgbouncer binary that tracks protocol-level prepared statements in
 * transaction mode (1.21 and later, `max_prepared_statements`):
 * `RESC_TEST_PGBOUNCER_BIN` when set, else the machine's own when recent
 * enough, else the one `.ci/run` builds; undefined when there is none
 * (docs/decisions/1347-pgbouncer-prepared-statements.md).
 */
export const PGBOUNCER_TRACKING = [process.env.RESC_TEST_PGBOUNCER_BIN, PGBOUNCER, BUILT_PGBOUNCER].find((p) => {
  if (p === undefined || p === "" || !existsSync(p)) return false;
  const v = versionOf(p);
  return v !== undefined && (v[0] > 1 || v[1] >= 21);
});

/** Options of {@link startPgBouncer}. */
export interface BouncerOptions {
  /** The binary; default {@link PGBOUNCER}. */
  binary?: string;
  /** `max_prepared_statements` (PgBouncer 1.21+); unset leaves the binary's default. */
  maxPreparedStatements?: number;
}

/** A running PgBouncer. */
export interface TestBouncer {
  /** `url` with host and port replaced by PgBouncer's. */
  through(url: string): string;
  /** The PgBouncer process (the benchmark reads its CPU time, bench/workers.ts). */
  pid: number;
  stop(): Promise<void>;
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => {
      s.end();
      resolve(true);
    });
    s.on("error", () => resolve(false));
  });
}

/**
 * Starts PgBouncer in transaction mode in front of `upstream`
 * (`postgres://user@host:port/…`), with `poolSize` server connections per
 * database, `options.binary` (default Debian's) and, when given,
 * `max_prepared_statements`. The test's user may open the admin console
 * (database `pgbouncer`, `SHOW STATS`).
 * @throws Error when it does not listen within 10 s (its log is in the message)
 */
export async function startPgBouncer(
  upstream: string,
  poolSize = 3,
  options: BouncerOptions = {},
): Promise<TestBouncer> {
  const binary = options.binary ?? PGBOUNCER;
  if (!binary) throw new Error("pgbouncer is not installed (apt-get install pgbouncer)");
  const u = new URL(upstream);
  const dir = await mkdtemp(path.join(os.tmpdir(), "resc-pgbouncer-"));
  const port = await freePort();
  const user = decodeURIComponent(u.username || "postgres");
  await writeFile(path.join(dir, "userlist.txt"), `"${user}" ""\n`);
  await writeFile(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${u.hostname} port=${u.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${poolSize}`,
      "max_client_conn = 500",
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      ...(options.maxPreparedStatements === undefined
        ? []
        : [`max_prepared_statements = ${options.maxPreparedStatements}`]),
      // The admin console (SHOW STATS) for the test's user, over TCP with trust like the rest.
      `admin_users = ${user}`,
      // Nothing more: resc in --pgbouncer mode must send no startup parameter PgBouncer 1.18 refuses.
      "",
    ].join("\n"),
  );
  let ids: { uid: number; gid: number } | undefined;
  if (asRoot) {
    ids = {
      uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
      gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
    };
    for (const f of ["", "userlist.txt", "pgbouncer.ini"]) await chown(path.join(dir, f), ids.uid, ids.gid);
  }
  const ini = path.join(dir, "pgbouncer.ini");
  // Spawned as postgres directly (not through runuser), so killing the child kills PgBouncer itself.
  const child: ChildProcess = spawn(binary, [ini], { stdio: "ignore", ...(ids ?? {}) });
  // Whatever way the test process ends, PgBouncer ends with it.
  const killOnExit = (): void => void child.kill("SIGKILL");
  process.once("exit", killOnExit);
  for (let i = 0; i < 200 && !(await listening(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await listening(port))) {
    child.kill("SIGKILL");
    const { readFile } = await import("node:fs/promises");
    const log = await readFile(path.join(dir, "pgbouncer.log"), "utf8").catch(() => "");
    await rm(dir, { recursive: true, force: true });
    throw new Error(`pgbouncer did not start: ${log}`);
  }
  return {
    pid: child.pid!,
    through(url) {
      const t = new URL(url);
      t.hostname = "127.0.0.1";
      t.port = String(port);
      return t.toString();
    },
    async stop() {
      process.off("exit", killOnExit);
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    },
  };
}
