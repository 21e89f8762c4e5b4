/**
 * A PgBouncer of the test's own (Debian's `pgbouncer` package) in
 * transaction mode in front of a PostgreSQL server, on a free port, in a
 * temporary directory; PgBouncer refuses to run as root, so as root it
 * runs as `postgres` (docs/decisions/1301-pgbouncer.md).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./ports.js";

/** The pgbouncer binary, or undefined where it is not installed. */
export const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((p) => existsSync(p));

/** A running PgBouncer. */
export interface TestBouncer {
  /** `url` with host and port replaced by PgBouncer's. */
  through(url: string): string;
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
 * database.
 * @throws Error when it does not listen within 10 s (its log is in the message)
 */
export async function startPgBouncer(upstream: string, poolSize = 3): Promise<TestBouncer> {
  if (!PGBOUNCER) throw new Error("pgbouncer is not installed (apt-get install pgbouncer)");
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
      // Nothing more: resc in --pgbouncer mode must send no startup parameter PgBouncer 1.18 refuses.
      "",
    ].join("\n"),
  );
  let ids: { uid: number; gid: number } | undefined;
  if (asRoot) {
    const { execFileSync } = await import("node:child_process");
    ids = {
      uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
      gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
    };
    for (const f of ["", "userlist.txt", "pgbouncer.ini"]) await chown(path.join(dir, f), ids.uid, ids.gid);
  }
  const ini = path.join(dir, "pgbouncer.ini");
  // Spawned as postgres directly (not through runuser), so killing the child kills PgBouncer itself.
  const child: ChildProcess = spawn(PGBOUNCER, [ini], { stdio: "ignore", ...(ids ?? {}) });
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
