/**
 * Every command block (```sh) of README.md, docs/lifecycle.md and
 * docs/http.md runs as printed (docs/decisions/1363-docs-commands-tested.md):
 * each in a fresh directory outside the repository, as bash with `-e` and
 * `pipefail`, so every line must succeed; `curl` fails on an HTTP error
 * status. The comment before a block (test/docs/blocks.ts) says where it
 * starts, which line serves, which database it uses.
 *
 * Three things differ from a reader's terminal, and only these: the port
 * (`127.0.0.1:3000` is a free port, also given as `PORT`), the database
 * names (one of this run each, dropped after; `PGHOST`, `PGPORT` and
 * `PGUSER` point `createdb` and `psql` at the test server), and npm runs
 * with `prefer-offline`. The checkout is a copy of the repository's files
 * (committed or not); "a project of one's own" is a directory where resc
 * is installed from that copy as the README says (`npm install
 * /path/to/resc`), done once and reused by every block.
 */
import { execFile } from "node:child_process";
import { cp, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parse as parseUrl } from "pg-connection-string";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knownServer, runPrefix } from "../support/db.js";
import { freePort } from "../support/ports.js";
import { run } from "../support/run.js";
import { chains, commandBlocks, type CommandBlock } from "./blocks.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PAGES = ["README.md", "docs/lifecycle.md", "docs/http.md"];
/** Longest wait for a server line to answer, in 0.5 s polls (`npm ci && npm start` installs first). */
const SERVER_POLLS = 1200;

let work = "";
let checkout = "";
let checkoutInstalled = false;
let admin: string | undefined;

/** The environment of every block: the caller's, less what belongs to this test run or to npm running it. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(npm_|VITEST|RESC_|TRACKER_|NODE_ENV$|DATABASE_URL$|PORT$|INIT_CWD$|TEST$)/.test(k))
      continue;
    env[k] = v;
  }
  Object.assign(env, {
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  });
  if (admin) {
    const c = parseUrl(admin);
    Object.assign(env, {
      PGHOST: c.host ?? "127.0.0.1",
      PGPORT: c.port ?? "5432",
      PGUSER: c.user ?? "postgres",
      ...(c.password ? { PGPASSWORD: c.password } : {}),
    });
  }
  return env;
}

/**
 * The files of the repository, committed or not (what a clone holds), copied to `to`: tracked files, and
 * untracked regular files. Never a symbolic link that is not tracked, nor anything under `node_modules`: a work
 * tree whose `node_modules` links to a shared install would have it emptied by the quick start's `npm ci`.
 */
async function copyRepository(to: string): Promise<void> {
  const list = async (...args: string[]): Promise<string[]> =>
    (await promisify(execFile)("git", ["ls-files", "-z", ...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout
      .split("\0")
      .filter(Boolean);
  const untracked = [];
  for (const file of await list("-o", "--exclude-standard")) {
    const st = await lstat(path.join(ROOT, file)).catch(() => undefined);
    if (st?.isFile()) untracked.push(file);
  }
  for (const file of [...(await list("-c")), ...untracked]) {
    if (file.split("/").includes("node_modules")) continue;
    await cp(path.join(ROOT, file), path.join(to, file), { force: true, verbatimSymlinks: true }).catch(
      (e: NodeJS.ErrnoException) => {
        if (e.code !== "ENOENT") throw e; // listed but deleted in the work tree
      },
    );
  }
  const modules = await lstat(path.join(to, "node_modules")).catch(() => undefined);
  if (modules !== undefined) throw new Error(`the copy of the repository has a node_modules of its own: ${to}`);
}

/** The checkout as the quick start leaves it (`npm ci` has run), for the blocks that install resc from it. */
async function installedCheckout(): Promise<string> {
  if (!checkoutInstalled) {
    const r = await run("npm", ["ci"], { cwd: checkout, timeout: 900_000, env: baseEnv() });
    expect(r.code, `npm ci in the checkout: ${r.stderr}`).toBe(0);
    checkoutInstalled = true;
  }
  return checkout;
}

/** Quoted for bash. */
const sh = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What one run of blocks shares: its directory, port, database, the servers it started. */
interface Session {
  cwd: string;
  port: number;
  database?: { name: string; url: string; printed: string };
  pids: string;
  logs: string;
}

/** `text` with the session's port, database and checkout in place of the printed ones. */
function substitute(text: string, s: Session, block: CommandBlock): string {
  let out = text;
  if (block.directives.checkout) out = out.split(block.directives.checkout).join(checkout);
  const db = s.database;
  if (db) {
    if (/^postgres(ql)?:\/\//.test(db.printed)) out = out.split(db.printed).join(db.url);
    else {
      // A URL ending in the printed name becomes the real URL; the name as a shell word becomes the real name.
      out = out.replace(new RegExp(`postgres(?:ql)?://[^\\s'"/]*/${escape(db.printed)}(?![\\w-])`, "g"), db.url);
      out = out.replace(new RegExp(`(?<=^|[\\s='"])${escape(db.printed)}(?=$|[\\s;&|)'"])`, "gm"), db.name);
    }
  }
  return out.replace(/\b(127\.0\.0\.1|localhost):3000\b/g, `127.0.0.1:${s.port}`);
}

/**
 * The bash script of `block`: its lines with each server line run in the background (its process group's id
 * kept in `s.pids`) and waited for, each omitted line a no-op. Fails the test when a `server` or `omit` prefix
 * names no line of the block, so a marker cannot go stale unnoticed.
 */
function script(block: CommandBlock, s: Session): string {
  const d = block.directives;
  const used = new Set<string>();
  const lines = block.text.split("\n").map((line) => {
    const trimmed = line.trim();
    const omitted = d.omit.find((o) => trimmed.startsWith(o.prefix));
    if (omitted) {
      used.add(omitted.prefix);
      return `: omitted, ${sh(omitted.reason)}`;
    }
    const server = d.servers.find((p) => trimmed.startsWith(p));
    if (server) {
      used.add(server);
      return `__serve ${sh(substitute(trimmed, s, block))}`;
    }
    return substitute(line, s, block);
  });
  for (const p of [...d.servers, ...d.omit.map((o) => o.prefix)])
    expect(used.has(p), `${block.file}:${block.line}: no line starts with "${p}"`).toBe(true);
  return [
    "set -eo pipefail",
    `trap 'pwd > "$RESC_DOCS_CWD"' EXIT`,
    'curl() { command curl --fail-with-body "$@"; }',
    "__serve() {",
    '  local log="$RESC_DOCS_LOGS/server-$RANDOM.log"',
    '  setsid bash -c "$1" >"$log" 2>&1 </dev/null &',
    "  local pid=$!",
    '  echo "$pid" >>"$RESC_DOCS_PIDS"',
    `  for _ in $(seq 1 ${SERVER_POLLS}); do`,
    '    local code; code=$(command curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$PORT/" || true)',
    '    if [ "$code" != "000" ] && [ "$code" != "503" ]; then return 0; fi',
    '    if ! kill -0 "$pid" 2>/dev/null; then echo "the server line ended: $1" >&2; cat "$log" >&2; return 1; fi',
    "    sleep 0.5",
    "  done",
    '  echo "the server line never answered on port $PORT: $1" >&2; cat "$log" >&2; return 1',
    "}",
    ...strict([...d.first.map((c) => substitute(c, s, block)), ...lines]),
  ].join("\n");
}

/**
 * `-e` lets a failure at the start of `a && b` pass, where a reader would see it fail. So each logical line (a
 * line and those its trailing backslashes continue) runs as a group that ends the script with its status; the
 * closing brace is on a line of its own, so a trailing comment stays a comment.
 */
function strict(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const logical = [lines[i]!];
    while (/\\$/.test(logical.at(-1)!) && i + 1 < lines.length) logical.push(lines[++i]!);
    const head = logical[0]!.trim();
    if (head === "" || head.startsWith("#")) out.push(...logical);
    else out.push(`{ ${logical[0]}`, ...logical.slice(1), "} || exit $?");
  }
  return out;
}

/** Stops every server of the session: SIGTERM to each process group, SIGKILL to what is left after a bounded wait. */
async function stopServers(s: Session): Promise<void> {
  const pids = (await readFile(s.pids, "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);
  const alive = (pid: number): boolean => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const pid of pids) if (alive(pid)) process.kill(-pid, "SIGTERM");
  for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 200));
  for (const pid of pids) if (alive(pid)) process.kill(-pid, "SIGKILL");
  await writeFile(s.pids, "");
}

/** Runs `sql` on the server as the admin, against database `db` (default the admin's). */
async function onServer(sql: string, db?: string): Promise<void> {
  const url = new URL(admin!);
  if (db) url.pathname = `/${db}`;
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

let databases = 0;

/** Runs the blocks of one chain in order; every block must exit 0 and print what its marker expects. */
async function runChain(chain: CommandBlock[]): Promise<void> {
  const first = chain[0]!.directives;
  const place = first.place;
  const cwd = place === "checkout" ? checkout : await mkdtemp(path.join(work, "project-"));
  const session: Session = {
    cwd,
    port: await freePort(),
    pids: path.join(work, `pids-${path.basename(cwd)}-${chain[0]!.line}`),
    logs: await mkdtemp(path.join(work, "logs-")),
  };
  if (place === "project") {
    // The README's route from a checkout into a project of one's own.
    const r = await run("npm", ["install", await installedCheckout()], { cwd, timeout: 300_000, env: baseEnv() });
    expect(r.code, `npm install ${checkout}: ${r.stderr}`).toBe(0);
  }
  if (place === "empty" && first.checkout) await installedCheckout();
  // A block in the checkout runs where the quick start has installed it, unless it is the quick start.
  if (place === "checkout" && !chain.some((b) => /\bnpm ci\b/.test(b.text))) await installedCheckout();
  if (first.database) {
    const name = `${runPrefix()}docs_${++databases}`;
    const url = new URL(admin!);
    url.pathname = `/${name}`;
    session.database = { name, url: url.toString(), printed: first.database.name };
    if (first.database.from) {
      await onServer(`CREATE DATABASE "${name}"`);
      await onServer(await readFile(path.join(ROOT, first.database.from), "utf8"), name);
    }
  }
  try {
    for (const block of chain) {
      const where = `${block.file}:${block.line}`;
      const cwdFile = path.join(session.logs, "cwd");
      const env = {
        ...baseEnv(),
        PORT: String(session.port),
        RESC_DOCS_CWD: cwdFile,
        RESC_DOCS_PIDS: session.pids,
        RESC_DOCS_LOGS: session.logs,
        ...Object.fromEntries(Object.entries(block.directives.env).map(([k, v]) => [k, substitute(v, session, block)])),
      };
      const r = await runBash(script(block, session), session.cwd, env);
      expect(
        r.code,
        `${where} exited with ${r.code}:\n${block.text}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`,
      ).toBe(0);
      for (const text of block.directives.expect)
        expect(r.stdout, `${where}: the output lacks ${JSON.stringify(text)}`).toContain(text);
      session.cwd = (await readFile(cwdFile, "utf8")).trim() || session.cwd;
      // The quick start's `npm ci` leaves the checkout installed for the blocks that take resc from it.
      if (place === "checkout" && /\bnpm ci\b/.test(block.text)) checkoutInstalled = true;
    }
  } finally {
    await stopServers(session);
    if (session.database) await onServer(`DROP DATABASE IF EXISTS "${session.database.name}" WITH (FORCE)`);
    if (place !== "checkout") await rm(cwd, { recursive: true, force: true });
  }
}

/** bash with `text` on standard input, in `cwd`, with exactly `env`. */
function runBash(text: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      "bash",
      ["-c", text],
      { cwd, env, encoding: "utf8", timeout: 900_000, maxBuffer: 64 * 1024 * 1024, killSignal: "SIGKILL" },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

const pages = await Promise.all(
  PAGES.map(async (file) => ({ file, blocks: commandBlocks(file, await readFile(path.join(ROOT, file), "utf8")) })),
);

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "resc-docs-"));
  checkout = path.join(work, "resc");
  await mkdir(checkout);
  await copyRepository(checkout);
  admin = await knownServer();
}, 300_000);

afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

describe("the pages' command blocks", () => {
  it("are found, each with a marker the test understands", () => {
    expect(pages.find((p) => p.file === "README.md")!.blocks.length).toBeGreaterThanOrEqual(5);
    expect(pages.find((p) => p.file === "docs/lifecycle.md")!.blocks.length).toBeGreaterThanOrEqual(5);
    for (const p of pages) chains(p.blocks);
  });
});

// docs/http.md has no ```sh block today; its blocks are run the day it has one.
for (const { file, blocks } of pages.filter((p) => p.blocks.length > 0)) {
  describe(file, () => {
    for (const chain of chains(blocks)) {
      const head = chain[0]!;
      const title = `line ${head.line}${chain.length > 1 ? ` and ${chain.length - 1} after it` : ""}: ${head.text.split("\n")[0]}`;
      const skip = chain.map((b) => b.directives.skip).find((r) => r !== undefined);
      if (skip !== undefined) {
        it.skip(`${title} (skipped: ${skip})`, () => {});
        continue;
      }
      it(
        title,
        async (ctx) => {
          if (head.directives.database && !admin) ctx.skip(); // no PostgreSQL to run createdb/psql against
          await runChain(chain);
        },
        1_800_000,
      );
    }
  });
}
