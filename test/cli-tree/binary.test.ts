/**
 * The generated command tree as a user runs it (spec: Command-line client):
 * the tree and typed client of spec.resource, emitted into a scratch
 * directory, driven by a two-line main like examples/tracker/cli/main.ts
 * and run as a separate process (Node with tsx) against the reference
 * application on a real port. Every request the service receives is
 * recorded, so the tests see what went over the wire.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitClient, emitCommandTree } from "../../compiler/index.js";
import { compileFile } from "../support/service.js";
import { startTracker, type RunningService } from "./service.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
// Inside the repository, so the tree finds @oclif/core in node_modules.
const dir = mkdtempSync(path.join(ROOT, "test", ".generated-tree-"));
let svc: RunningService;

/** The hand-written main of a binary: build the tree and run it. */
const MAIN = `import { buildCommandTree } from "./commands/index.js";\nawait buildCommandTree().execute();\n`;
/** A main passing a client value built from MAIN_BASE_URL and MAIN_TOKEN. */
const MAIN_WITH_CLIENT = `import { HttpClient } from "./client/http.js";
import { buildCommandTree } from "./commands/index.js";
await buildCommandTree({ client: new HttpClient({ baseURL: process.env.MAIN_BASE_URL, token: process.env.MAIN_TOKEN }) }).execute();
`;
/** A main whose client value has a transport that answers with what it was asked, so no service is needed. */
const MAIN_ECHO = `import { HttpClient } from "./client/http.js";
import { buildCommandTree } from "./commands/index.js";
const client = new HttpClient({
  baseURL: process.env.MAIN_BASE_URL,
  token: process.env.MAIN_TOKEN,
  transport: async (r) => ({ status: 200, body: JSON.stringify({ url: r.url, authorization: r.headers["authorization"] ?? null }) }),
});
await buildCommandTree({ client }).execute();
`;

beforeAll(async () => {
  const { schema } = await compileFile(path.join(ROOT, "spec.resource"));
  const files = [
    ...(await emitClient(schema, "client")),
    ...(await emitCommandTree(schema, "commands", { cliName: "tracker", clientDir: "client" })),
  ];
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
    writeFileSync(path.join(dir, f.path), f.contents);
  }
  writeFileSync(path.join(dir, "main.ts"), MAIN);
  writeFileSync(path.join(dir, "main-client.ts"), MAIN_WITH_CLIENT);
  writeFileSync(path.join(dir, "main-echo.ts"), MAIN_ECHO);
  svc = await startTracker();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await svc?.stop();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a main with `args`; the environment has no TRACKER_* variable unless `env` sets one. */
function run(args: string[], env: Record<string, string> = {}, main = "main.ts"): Promise<Run> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("TRACKER_") && !k.startsWith("MAIN_")) base[k] = v;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(dir, main), ...args],
      { cwd: ROOT, env: { ...base, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs the plain main against the test service. */
function tracker(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return run(args, { TRACKER_BASE_URL: svc.url, ...env });
}

async function direct(pathAndQuery: string): Promise<string> {
  return (await fetch(svc.url + pathAndQuery)).text();
}

function requestsSince(n: number) {
  return svc.requests.slice(n);
}

describe("list", () => {
  it("prints the service's JSON, pretty by default and byte for byte with --compact", async () => {
    const raw = await direct("/tasks?status=eq.todo");
    const compact = await tracker(["tasks", "list", "--status", "eq.todo", "--compact"]);
    expect(compact.stderr).toBe("");
    expect(compact.code).toBe(0);
    expect(compact.stdout).toBe(raw + "\n");
    const pretty = await tracker(["tasks", "list", "--status", "todo"]);
    expect(pretty.stdout).toBe(JSON.stringify(JSON.parse(raw), null, 2) + "\n");
  });

  it("takes filters in kebab-case and snake_case, repeated flags conjoining, passed to the service as written", async () => {
    const before = svc.requests.length;
    const kebab = await tracker(["tasks", "list", "--list-id", "1", "--due-on", "notnull", "--priority", "gte.1", "--priority", "lt.4", "--compact"]);
    const snake = await tracker(["tasks", "list", "--list_id", "1", "--due_on", "notnull", "--priority", "gte.1", "--priority", "lt.4", "--compact"]);
    expect(kebab.code).toBe(0);
    expect(snake.stdout).toBe(kebab.stdout);
    expect(JSON.parse(kebab.stdout).items.map((t: { id: number }) => t.id)).toEqual([1]);
    const urls = requestsSince(before).map((r) => new URL(r.url).search);
    // Filters go out in the schema's column order, each flag's values in the order given.
    expect(urls).toEqual([
      "?list_id=1&priority=gte.1&priority=lt.4&due_on=notnull",
      "?list_id=1&priority=gte.1&priority=lt.4&due_on=notnull",
    ]);
  });

  it("passes sort, select, expand, search, groups, paging and count", async () => {
    const before = svc.requests.length;
    const r = await tracker([
      "tasks", "list", "--sort", "-priority", "--sort", "title", "--select", "title,priority", "--expand", "list",
      "--search", "e", "--or", "(status.eq.todo,status.eq.doing)", "--per-page", "1", "--page", "2", "--count", "--compact",
    ]);
    expect(r.stderr).toBe("");
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({ page: 2, per_page: 1, total: 2, has_more: false });
    expect(body.items).toEqual([{ id: 2, title: "Order titanium", priority: 2, list: expect.objectContaining({ title: "Backlog" }) }]);
    expect(new URL(requestsSince(before)[0].url).search).toBe(
      "?or=%28status.eq.todo%2Cstatus.eq.doing%29&sort=-priority%2Ctitle&select=title%2Cpriority&expand=list&search=e&page=2&per_page=1&count=exact",
    );
  });

  it("--all follows next_cursor and prints one merged page", async () => {
    const before = svc.requests.length;
    const r = await tracker(["tasks", "list", "--all", "--per-page", "1", "--sort", "title", "--select", "title", "--count", "--compact"]);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({
      items: [
        { id: 1, title: "Design the fuel pump" },
        { id: 2, title: "Order titanium" },
        { id: 4, title: "Test launch pad" },
        { id: 3, title: "Write the 50% discount copy" },
      ],
      per_page: 1,
      has_more: false,
      total: 4,
    });
    const seen = requestsSince(before).map((q) => new URL(q.url).searchParams);
    expect(seen.length).toBe(4);
    expect(seen[0].get("count")).toBe("exact");
    for (const p of seen.slice(1)) {
      expect(p.get("cursor")).toMatch(/./);
      expect([p.get("count"), p.get("page"), p.get("sort"), p.get("per_page")]).toEqual([null, null, "title", "1"]);
    }
  });
});

describe("get, create, update, delete", () => {
  it("reads one row with expansions, and --select keeps the key, the named columns and the expansions", async () => {
    const r = await tracker(["tasks", "get", "1", "--expand", "list", "--select", "title,status", "--compact"]);
    expect(r.stderr).toBe("");
    const row = JSON.parse(r.stdout);
    expect(Object.keys(row)).toEqual(["id", "title", "status", "list"]);
    expect(row.list.title).toBe("Backlog");
    const raw = await direct("/tasks/1?expand=list");
    expect(r.stdout).toContain(JSON.stringify(JSON.parse(raw).list));
  });

  it("creates with per-column flags, updates only the flags given, sets null, deletes", async () => {
    const created = await tracker(["lists", "create", "--title", "From the CLI", "--position", "7", "--color", "#abcdef", "--compact"]);
    expect(created.stderr).toBe("");
    const row = JSON.parse(created.stdout);
    expect(row).toMatchObject({ title: "From the CLI", position: 7, color: "#abcdef", archived_at: null });

    const before = svc.requests.length;
    const updated = await tracker(["lists", "update", String(row.id), "--color", "", "--compact"]);
    expect(JSON.parse(updated.stdout)).toMatchObject({ title: "From the CLI", color: "" });
    expect(requestsSince(before)[0]).toMatchObject({ method: "PATCH", body: '{"color":""}' });

    const nulled = await tracker(["lists", "update", String(row.id), "--set-null", "color", "--archived-at", "2026-05-01T00:00:00Z", "--compact"]);
    expect(JSON.parse(nulled.stdout)).toMatchObject({ color: null, archived_at: "2026-05-01T00:00:00Z" });

    const deleted = await tracker(["lists", "delete", String(row.id)]);
    expect([deleted.code, deleted.stdout, deleted.stderr]).toEqual([0, "", ""]);
    const gone = await tracker(["lists", "get", String(row.id)]);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toBe("Error: No lists row has this key. (HTTP 404)\npath.id: no such row\n");
  });

  it("prints a row's version with --etag and writes only that version with --if-match", async () => {
    const created = await tracker(["lists", "create", "--title", "Versioned", "--position", "8", "--compact", "--etag"]);
    const row = JSON.parse(created.stdout);
    const tag = /^ETag: ("[0-9a-f]{32}")\n$/.exec(created.stderr)?.[1];
    expect(tag).toBeDefined();
    const read = await tracker(["lists", "get", String(row.id), "--etag", "--compact"]);
    expect(read.stderr).toBe(`ETag: ${tag}\n`);

    const before = svc.requests.length;
    const moved = await tracker(["lists", "update", String(row.id), "--title", "Moved", "--if-match", tag!, "--compact"]);
    expect(moved.code).toBe(0);
    expect(requestsSince(before)[0]?.ifMatch).toBe(tag);
    // The same tag again: the row is at a newer version, so nothing is written.
    const stale = await tracker(["lists", "update", String(row.id), "--title", "Lost", "--if-match", tag!]);
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toMatch(/^Error: The lists row has changed since the version If-Match names\. \(HTTP 412\)\n/);
    const refused = await tracker(["lists", "delete", String(row.id), "--if-match", tag!]);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse((await tracker(["lists", "get", String(row.id), "--compact"])).stdout)).toMatchObject({
      title: "Moved",
    });
  });

  it("runs a declared action: the key as argument, its input fields as flags, the row printed (docs/decisions/1334-declared-actions.md)", async () => {
    const made = await tracker(["tasks", "create", "--list-id", "2", "--title", "Act on me", "--labels", "a", "--compact"]);
    expect(made.code, made.stderr).toBe(0);
    const id = String(JSON.parse(made.stdout).id);
    const help = (await tracker(["tasks", "complete", "--help"])).stdout;
    expect(help).toMatch(/^Marks the task done \(POST \/tasks\/\{id\}\/complete\)\.$/m);
    expect(help.replace(/\s+/g, " ")).toContain("--note=<value> Why it is done, kept in attrs.note when given (text, nullable).");
    const before = svc.requests.length;
    const done = await tracker(["tasks", "complete", id, "--note", "shipped", "--compact", "--etag"]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ id: Number(id), status: "done", attrs: { note: "shipped" } });
    expect(requestsSince(before)).toMatchObject([{ method: "POST", body: '{"note":"shipped"}' }]);
    const tag = /^ETag: ("[0-9a-f]{32}")\n$/.exec(done.stderr)?.[1];
    expect(tag).toBeDefined();
    const again = await tracker(["tasks", "complete", id]);
    expect([again.code, again.stderr]).toEqual([1, "Error: the task is already done (HTTP 409)\npath.id: the task is already done\n"]);
    const stale = await tracker(["tasks", "reopen", id, "--if-match", '"0000"']);
    expect(stale.stderr).toMatch(/\(HTTP 412\)/);
    const reopened = await tracker(["tasks", "reopen", id, "--if-match", tag!, "--compact"]);
    expect(JSON.parse(reopened.stdout)).toMatchObject({ status: "todo" });
  });

  it("retries a create safely with --idempotency-key: the first answer again, one row (docs/decisions/1335-idempotency-keys.md)", async () => {
    const args = ["lists", "create", "--title", "Keyed once", "--position", "62", "--compact", "--idempotency-key", "cli-1"];
    const first = await tracker(args);
    const again = await tracker(args);
    expect(first.code, first.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(JSON.parse(await direct("/lists?search=Keyed%20once")).items).toHaveLength(1);
    const other = await tracker(["lists", "create", "--title", "Other", "--position", "63", "--idempotency-key", "cli-1"]);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/\(HTTP 422\)/);
  });

  it("create-many sends 1,000 rows in one request and prints them in order", async () => {
    const file = path.join(dir, "thousand.json");
    const rows = Array.from({ length: 1000 }, (_, i) => ({ list_id: 2, title: "CLI thousand", position: i, labels: [] }));
    writeFileSync(file, JSON.stringify(rows));
    const before = svc.requests.length;
    const made = await tracker(["tasks", "create-many", file, "--compact"]);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).map((r: { position: number }) => r.position)).toEqual(rows.map((r) => r.position));
    expect(requestsSince(before)).toHaveLength(1);
    const removed = await tracker(["tasks", "delete-where", "--title", "CLI thousand", "--compact"]);
    expect(JSON.parse(removed.stdout)).toHaveLength(1000);
  });

  it("create-many sends a file's JSON array in one request and prints the stored rows", async () => {
    const file = path.join(dir, "rows.json");
    writeFileSync(file, JSON.stringify([{ title: "Many A", position: 30 }, { title: "Many B", position: 31 }]));
    const before = svc.requests.length;
    const made = await tracker(["lists", "create-many", file, "--compact"]);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout).map((r: { title: string }) => r.title)).toEqual(["Many A", "Many B"]);
    expect(requestsSince(before)).toHaveLength(1);
    const id = JSON.parse(made.stdout)[0].id as number;
    writeFileSync(file, JSON.stringify([{ id, title: "Many A, merged", position: 30 }]));
    const upsert = await tracker(["lists", "create-many", file, "--resolution", "merge", "--on-conflict", "id", "--compact"]);
    expect(JSON.parse(upsert.stdout)).toMatchObject([{ id, title: "Many A, merged" }]);
    const unpaired = await tracker(["lists", "create-many", file, "--on-conflict", "id"]);
    expect([unpaired.code, unpaired.stderr]).toEqual([2, "Error: --on-conflict needs --resolution merge or --resolution ignore\n"]);
    writeFileSync(file, '{"title": "not an array"}');
    const refused = await tracker(["lists", "create-many", file]);
    expect([refused.code, refused.stderr]).toEqual([2, `Error: ${file} does not hold a JSON array of rows\n`]);
  });

  it("update-where and delete-where change every row the filter flags match, bounded by --max-affected", async () => {
    const file = path.join(dir, "sweep.json");
    writeFileSync(
      file,
      JSON.stringify([
        { list_id: 1, title: "cli sweep a", labels: ["cli-sweep"] },
        { list_id: 1, title: "cli sweep b", labels: ["cli-sweep"] },
      ]),
    );
    expect((await tracker(["tasks", "create-many", file])).code).toBe(0);
    const none = await tracker(["tasks", "update-where", "--set", '{"priority": 1}']);
    expect([none.code, none.stderr]).toEqual([
      2,
      "Error: give at least one filter: without one every row would change (see --help)\n",
    ]);
    const refused = await tracker(["tasks", "update-where", "--labels", "has.cli-sweep", "--set", '{"priority": 1}', "--max-affected", "1"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/HTTP 400/);
    const written = await tracker(["tasks", "update-where", "--labels", "has.cli-sweep", "--set", '{"priority": 1}', "--compact"]);
    expect(JSON.parse(written.stdout).map((t: { priority: number }) => t.priority)).toEqual([1, 1]);
    const gone = await tracker(["tasks", "delete-where", "--labels", "has.cli-sweep", "--compact"]);
    expect(JSON.parse(gone.stdout)).toHaveLength(2);
  });

  it("converts create values: numbers, arrays, JSON documents", async () => {
    const before = svc.requests.length;
    const r = await tracker([
      "tasks", "create", "--list-id", "2", "--title", "Typed flags", "--labels", "a,b", "--attrs", '{"note":"n","n":1}',
      "--priority", "3", "--estimate", "1.25", "--due_on", "2026-02-03", "--compact",
    ]);
    expect(r.stderr).toBe("");
    expect(JSON.parse(requestsSince(before)[0].body)).toEqual({
      list_id: 2,
      title: "Typed flags",
      priority: 3,
      labels: ["a", "b"],
      attrs: { note: "n", n: 1 },
      estimate: "1.25",
      due_on: "2026-02-03",
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ labels: ["a", "b"], estimate: "1.25", due_on: "2026-02-03T00:00:00Z" });
  });
});

describe("watch", () => {
  /** Starts `tracker <args>` and resolves with its first `count` stdout lines, then stops it (as Ctrl-C does). */
  function watchLines(args: string[], count: number, write: () => Promise<void>): Promise<string[]> {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(dir, "main.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, TRACKER_BASE_URL: svc.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`watch printed ${JSON.stringify(out)} ${err}`));
      }, 30_000);
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const lines = out.split("\n").filter((l) => l !== "");
        if (lines.length >= count) {
          clearTimeout(timer);
          child.kill("SIGINT");
          resolve(lines.slice(0, count));
        }
      });
      // The stream is open once the service logged its request: then write.
      const started = svc.log.length;
      const poll = setInterval(() => {
        if (svc.log.slice(started).some((l) => l.startsWith("GET /tasks/events"))) {
          clearInterval(poll);
          void write().catch(reject);
        }
      }, 50);
    });
  }

  it("prints each change the filter flags select as one JSON line, and resumes after --last-event-id", async () => {
    const post = (title: string) =>
      fetch(`${svc.url}/tasks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ list_id: 1, title, labels: [] }),
      }).then(async (r) => (await r.json()) as { id: number });
    let made: { id: number } | undefined;
    const lines = await watchLines(["tasks", "watch", "--title", "eq.Watched", "--select", "title"], 1, async () => {
      await post("Not watched");
      made = await post("Watched");
    });
    const first = JSON.parse(lines[0]!) as { id: string; event: string; data: unknown };
    expect(first).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/), event: "create", data: { id: made!.id, title: "Watched" } });
    const again = await watchLines(["tasks", "watch", "--title", "eq.Watched", "--last-event-id", first.id], 1, async () => {
      await fetch(`${svc.url}/tasks/${made!.id}`, { method: "DELETE" });
    });
    // The tracker's tasks are soft-deleted: DELETE marks the row, which the feed tells as a delete (decision 1337).
    expect(JSON.parse(again[0]!)).toMatchObject({ event: "delete", data: { id: made!.id } });
  }, 60_000);
});

describe("refusals and failures", () => {
  it("prints a 400 as Error, one line per problem and the allowed alternatives, on stderr, and exits non-zero", async () => {
    const r = await tracker(["tasks", "list", "--sort", "bogus", "--expand", "watchers"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      [
        "Error: unknown column bogus (and 1 more problem) (HTTP 400)",
        "query.sort: unknown column bogus",
        "allowed: title, status, priority, position, estimate, due_on, created_at",
        "query.expand: watchers is not an expandable relation",
        "allowed: list, assignee, comments",
        "",
      ].join("\n"),
    );
  });

  it("checks --set-null against the nullable columns before any request", async () => {
    const before = svc.requests.length;
    const r = await tracker(["tasks", "update", "1", "--set-null", "title"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Expected --set-null=title to be one of: assignee_id, attrs,\s[\s›]*estimate, due_on,\s[\s›]*assignee-id, due-on/);
    const clash = await tracker(["tasks", "update", "1", "--set-null", "estimate", "--estimate", "2"]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toBe("Error: --set-null estimate conflicts with a value given for estimate\n");
    const empty = await tracker(["tasks", "update", "1"]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe("Error: nothing to update: give at least one field flag or --set-null (see --help)\n");
    expect(svc.requests.length).toBe(before);
  });

  it("takes --set-null in both spellings, as every column flag", async () => {
    const before = svc.requests.length;
    const r = await tracker(["tasks", "update", "1", "--set-null", "due-on,assignee_id", "--compact"]);
    expect(requestsSince(before)[0]).toMatchObject({ method: "PATCH", body: '{"due_on":null,"assignee_id":null}' });
    expect(r.stderr).toBe("");
  });

  it("refuses an unknown get --select column before any request", async () => {
    const before = svc.requests.length;
    const r = await tracker(["tasks", "get", "1", "--select", "title,deleted_at"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "Error: --select: unknown column deleted_at; selectable: id, org_id, list_id, assignee_id, title, status, priority, position, labels, attrs, estimate, due_on, created_at, summary\n",
    );
    expect(svc.requests.length).toBe(before);
  });

  it("refuses a malformed JSON flag before any request", async () => {
    const before = svc.requests.length;
    const r = await tracker(["tasks", "update", "1", "--attrs", "{not json"]);
    expect([r.code, r.stderr]).toEqual([2, "Error: --attrs: not a JSON document: {not json\n"]);
    expect(svc.requests.length).toBe(before);
  });

  it("reports an unreachable service on stderr with a non-zero exit", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await run(["tasks", "list"], { TRACKER_BASE_URL: `http://127.0.0.1:${port}` });
    expect([r.code, r.stdout, r.stderr]).toEqual([1, "", `Error: cannot reach http://127.0.0.1:${port}/tasks: ECONNREFUSED\n`]);
  });
});

describe("base address and token", () => {
  const echo = async (args: string[], env: Record<string, string>): Promise<{ url: string; authorization: string | null }> => {
    const r = await run(["tasks", "get", "1", "--compact", ...args], env, "main-echo.ts");
    expect(r.stderr).toBe("");
    return JSON.parse(r.stdout);
  };

  it("takes the flag, then the client value, then the environment, then http://127.0.0.1:3000", async () => {
    expect((await echo([], {})).url).toBe("http://127.0.0.1:3000/tasks/1");
    expect((await echo([], { TRACKER_BASE_URL: "http://env.test" })).url).toBe("http://env.test/tasks/1");
    expect((await echo([], { TRACKER_BASE_URL: "http://env.test", MAIN_BASE_URL: "http://client.test" })).url).toBe("http://client.test/tasks/1");
    const all = await echo(["--base-url", "http://flag.test/api"], { TRACKER_BASE_URL: "http://env.test", MAIN_BASE_URL: "http://client.test" });
    expect(all.url).toBe("http://flag.test/api/tasks/1");
  });

  it("sends the token as Authorization: Bearer with the same precedence", async () => {
    expect((await echo([], {})).authorization).toBeNull();
    expect((await echo([], { TRACKER_TOKEN: "env-token" })).authorization).toBe("Bearer env-token");
    expect((await echo([], { TRACKER_TOKEN: "env-token", MAIN_TOKEN: "client-token" })).authorization).toBe("Bearer client-token");
    expect((await echo(["--token", "flag-token"], { TRACKER_TOKEN: "env-token", MAIN_TOKEN: "client-token" })).authorization).toBe(
      "Bearer flag-token",
    );
  });

  it("reaches the service with a client value, the token only in the header", async () => {
    const before = svc.requests.length;
    const r = await run(["orgs", "list", "--compact", "--token", "t0k3n"], { MAIN_BASE_URL: svc.url, TRACKER_BASE_URL: "http://127.0.0.1:9" }, "main-client.ts");
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).items).toHaveLength(2);
    const seen = requestsSince(before);
    expect(seen.map((q) => [q.authorization, q.url.includes("t0k3n")])).toEqual([["Bearer t0k3n", false]]);
  });
});

describe("the tree", () => {
  it("has one command per exposed resource and one subcommand per exposed operation", async () => {
    const root = await tracker(["--help"]);
    expect(root.stdout).toMatch(/TOPICS[\s\S]*comments[\s\S]*lists[\s\S]*orgs[\s\S]*task_watchers[\s\S]*tasks[\s\S]*users/);
    const commands = async (topic: string): Promise<string[]> =>
      [...(await tracker([topic, "--help"])).stdout.matchAll(new RegExp(`^  ${topic} ([\\w-]+)`, "gm"))].map((m) => m[1]);
    expect(await commands("orgs")).toEqual(["get", "list"]);
    expect(await commands("users")).toEqual(["get", "list", "update"]);
    // A create comes with create-many, its bulk form (docs/decisions/1330-bulk-create.md).
    // Declared actions are commands too (docs/decisions/1334-declared-actions.md).
    expect(await commands("tasks")).toEqual([
      "complete",
      "create",
      "create-many",
      "delete",
      "delete-where",
      "get",
      "list",
      "reopen",
      "update",
      "update-where",
      "watch",
    ]);
    expect(await commands("task_watchers")).toEqual(["list"]);
    expect(await commands("comments")).toEqual(["create", "create-many", "delete", "get", "list"]);
    const missing = await tracker(["orgs", "create", "--name", "x"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/command orgs:create not found/);
  });

  it("lists each filter's operators and enum values, and the sortable, selectable and expandable names", async () => {
    const help = (await tracker(["tasks", "list", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain(
      "--status=op.value... Filter on status (task_status): operator.value, or a bare value for eq; repeat to conjoin. Operators: between, contains, endswith, eq, gt, gte, ilike, in, like, lt, lte, ne, neq, nin, startswith. Values: todo, doing, blocked, done.",
    );
    expect(help).toContain("Operators: eq, has, hasall, hasany, ne, neq, nhas, nhasall, nhasany.");
    expect(help).toContain("Operators: hasdoc, isnull, nhasdoc, notnull.");
    expect(help).toContain("Also --due_on.");
    expect(help).toContain("Sortable: title, status, priority, position, estimate, due_on, created_at.");
    expect(help).toContain("Expandable: list, assignee, comments.");
    expect(help).toContain("$TRACKER_BASE_URL, else http://127.0.0.1:3000");
  });

  it("never offers a hidden column, and no read-only column on create", async () => {
    for (const args of [["users", "list"], ["users", "get"], ["users", "update"]]) {
      const help = (await tracker([...args, "--help"])).stdout;
      expect(help).not.toMatch(/password|avatar/);
    }
    const create = (await tracker(["tasks", "create", "--help"])).stdout;
    expect(create).not.toMatch(/--created-at|--org-id|--summary|--deleted/);
    expect(create).toMatch(/--title=<value>\s+\(required\)/);
    expect(create).toMatch(/--status=<option>/);
    const update = (await tracker(["tasks", "update", "--help"])).stdout;
    expect(update).not.toMatch(/--created-at|--id=/);
    expect(update).toMatch(/--set-null=<option>\.\.\.[\s\S]*Nullable: assignee-id, attrs, estimate, due-on\./);
    // A delete prints nothing, so it offers no --compact.
    const remove = (await tracker(["tasks", "delete", "--help"])).stdout;
    expect(remove).toMatch(/--base-url/);
    expect(remove).not.toMatch(/--compact/);
  });
});
