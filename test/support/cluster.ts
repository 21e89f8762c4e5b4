/**
 * A PostgreSQL cluster of the test's own, made with `initdb` in a temporary
 * directory and run with `pg_ctl` on a free port, for tests that restart,
 * stop or crash the server (the shared server must never be touched).
 * PostgreSQL refuses to run as root: when the tests run as root, every
 * command runs as the `postgres` user through `runuser`.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** A running cluster. */
export interface TestCluster {
  /** Port on 127.0.0.1. */
  readonly port: number;
  /** Connection string of database `db` (default `postgres`), user `postgres`, trust auth. */
  url(db?: string): string;
  /** `pg_ctl stop` in the given mode (the directory stays; `destroy` removes it). */
  stop(mode: "fast" | "immediate"): Promise<void>;
  /** `pg_ctl restart` in the given shutdown mode; resolves once the server accepts connections again. */
  restart(mode: "smart" | "fast" | "immediate"): Promise<void>;
  /** Stops the server (immediate) and removes its directory. */
  destroy(): Promise<void>;
}

/** The directory holding `initdb` and `pg_ctl`, or undefined when PostgreSQL's server binaries are missing. */
export function postgresBinDir(): string | undefined {
  const candidates = [
    process.env.PG_BINDIR,
    "/usr/lib/postgresql/17/bin",
    "/usr/lib/postgresql/16/bin",
    "/usr/lib/postgresql/15/bin",
    "/usr/local/bin",
    "/usr/bin",
  ];
  return candidates.find(
    (d) => d !== undefined && existsSync(path.join(d, "initdb")) && existsSync(path.join(d, "pg_ctl")),
  );
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

function exec(file: string, args: string[], timeout = 60_000): Promise<string> {
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { encoding: "utf8", timeout }, (err, stdout, stderr) => {
      if (err)
        reject(
          new Error(
            `${path.basename(file)} ${args.join(" ")} failed: ${stderr || stdout || err.message} (${String(err.code ?? err.signal ?? "")})`,
          ),
        );
      else resolve(stdout);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** The uid and gid of the `postgres` user, for the temporary directory's owner. */
function postgresIds(): Promise<{ uid: number; gid: number }> {
  return new Promise((resolve, reject) => {
    execFile("id", ["-u", "postgres"], (e1, uid) => {
      if (e1) return reject(e1);
      execFile("id", ["-g", "postgres"], (e2, gid) =>
        e2 ? reject(e2) : resolve({ uid: Number(uid), gid: Number(gid) }),
      );
    });
  });
}

/**
 * Makes and starts a cluster (`fsync=off`: the tests restart the server,
 * they never crash the machine, so the page cache keeps what was written).
 * @throws Error when the binaries are missing or a command fails (the directory is removed first)
 */
export async function startCluster(options: { replicaOf?: TestCluster } = {}): Promise<TestCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL's server binaries (initdb, pg_ctl) are not installed");
  const dir = await mkdtemp(path.join(os.tmpdir(), "resc-cluster-"));
  const data = path.join(dir, "data");
  const pgCtl = path.join(bin, "pg_ctl");
  let started = false;
  try {
    if (asRoot) {
      const { uid, gid } = await postgresIds();
      await chown(dir, uid, gid);
    }
    if (options.replicaOf) {
      // A streaming replica: a base backup of the primary, with standby.signal and primary_conninfo (-R).
      await exec(path.join(bin, "pg_basebackup"), [
        "-h",
        "127.0.0.1",
        "-p",
        String(options.replicaOf.port),
        "-U",
        "postgres",
        "-D",
        data,
        "-R",
        "-X",
        "stream",
        "--no-sync",
        "--checkpoint=fast",
      ]);
    } else {
      await exec(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
    }
    const port = await freePort();
    const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
    await exec(pgCtl, ["-D", data, "-o", opts, "-l", path.join(dir, "log"), "-w", "-t", "60", "start"]);
    started = true;
    return {
      port,
      url: (db = "postgres") => `postgres://postgres@127.0.0.1:${port}/${db}`,
      async stop(mode) {
        await exec(pgCtl, ["-D", data, "-m", mode, "-w", "stop"]);
      },
      async restart(mode) {
        await exec(pgCtl, [
          "-D",
          data,
          "-m",
          mode,
          "-o",
          opts,
          "-l",
          path.join(dir, "log"),
          "-w",
          "-t",
          "60",
          "restart",
        ]);
      },
      async destroy() {
        await exec(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    if (started) await exec(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}
