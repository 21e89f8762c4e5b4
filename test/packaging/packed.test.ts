/**
 * The npm package as a user gets it (docs/decisions/1060-packaging.md): `npm pack`, then a new
 * CommonJS project (`npm init -y`) that installs the tarball and
 *
 * - serves a schema with `resc dev --hooks hooks.ts` (the hooks import
 *   `resc/runtime`), on the embedded database;
 * - compiles a module using `resc/runtime`'s types with
 *   `skipLibCheck: false` (its declarations need `@types/pg`);
 * - compiles the generated command tree and the main of docs/clients.md.
 *
 * Also: the package holds LICENSE and every file README.md and docs/ link to.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../support/run.js";
import { freePort } from "../support/ports.js";

const ROOT = path.resolve(".");
const NPM = "npm";
let dir = "";
let project = "";
let packed: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-packed-"));
  const pack = await run(NPM, ["pack", "--json", "--pack-destination", dir], { cwd: ROOT, timeout: 180_000 });
  expect(pack.code, pack.stderr).toBe(0);
  const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as {
    filename: string;
    files: { path: string }[];
  }[];
  packed = info[0].files.map((f) => f.path);
  project = path.join(dir, "app");
  await mkdir(project);
  expect((await run(NPM, ["init", "-y"], { cwd: project })).code).toBe(0);
  const install = await run(
    NPM,
    ["install", "--no-audit", "--no-fund", "--prefer-offline", path.join(dir, info[0].filename), "typescript@~5.9"],
    { cwd: project, timeout: 300_000 },
  );
  expect(install.code, install.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("holds LICENSE, the docs and every file README.md and docs/ link to", async () => {
    expect(packed).toContain("LICENSE");
    expect(packed).toContain("docs/hooks.md");
    const sources = packed.filter((f) => f === "README.md" || (f.startsWith("docs/") && f.endsWith(".md")));
    const broken: string[] = [];
    for (const file of sources) {
      const text = await readFile(path.join(ROOT, file), "utf8");
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1].split("#")[0];
        if (target === "" || /^[a-z]+:/i.test(target)) continue;
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
        if (!packed.some((p) => p === resolved || p.startsWith(resolved.replace(/\/?$/, "/"))))
          broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("serves a schema with TypeScript hooks importing resc/runtime from a CommonJS project", async () => {
    await cp(path.join(ROOT, "examples/hooks"), path.join(project, "hooks-example"), { recursive: true });
    const port = await freePort();
    const child: ChildProcess = spawn(
      path.join(project, "node_modules/.bin/resc"),
      [
        "dev",
        "hooks-example/schema.resource",
        "--hooks",
        "hooks-example/hooks.ts",
        "--port",
        String(port),
        "--data-dir",
        ".resc/db",
      ],
      { cwd: project, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout!.on("data", (d) => (output += String(d)));
    child.stderr!.on("data", (d) => (output += String(d)));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`resc dev did not start: ${output}`)), 60_000);
        child.once("exit", (code) => reject(new Error(`resc dev exited with ${code}: ${output}`)));
        child.stdout!.on("data", () => {
          if (output.includes("serving")) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const base = `http://127.0.0.1:${port}`;
      const created = await fetch(`${base}/notes`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-team": "red" },
        body: JSON.stringify({ title: "Ship it" }),
      });
      expect(created.status, await created.clone().text()).toBe(201);
      expect(((await created.json()) as { team: string }).team).toBe("red");
      const blue = (await (await fetch(`${base}/notes`, { headers: { "x-team": "blue" } })).json()) as {
        items: unknown[];
      };
      expect(blue.items).toEqual([]);
      const past = await fetch(`${base}/notes`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-team": "red" },
        body: JSON.stringify({ title: "Late", due_on: "2000-01-01" }),
      });
      expect(past.status).toBe(422);
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("compiles against resc/runtime's declarations with skipLibCheck off, and the generated command tree with the documented main", async () => {
    await cp(path.join(ROOT, "examples/tracker/generated/cli"), path.join(project, "cli"), { recursive: true });
    await writeFile(
      path.join(project, "main.ts"),
      'import { buildCommandTree } from "./cli/commands/index.js";\n\nvoid buildCommandTree().execute();\n',
    );
    await writeFile(
      path.join(project, "use-runtime.ts"),
      [
        'import { createPgExecutor, and, cmp, type Hooks, type PgExecutor } from "resc/runtime";',
        'const db: PgExecutor = createPgExecutor({ connectionString: "postgres://localhost/x" });',
        'export const hooks: Hooks = { beforeQuery: { notes: () => and(cmp("team", "eq", "red")) } };',
        "void db.close();",
        "",
      ].join("\n"),
    );
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "NodeNext", target: "ES2022", strict: true, skipLibCheck: false, noEmit: true },
        files: ["main.ts", "use-runtime.ts"],
      }),
    );
    const tsc = await run(process.execPath, [path.join(project, "node_modules/typescript/bin/tsc"), "-p", project], {
      cwd: project,
      timeout: 180_000,
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.code).toBe(0);
  });
});
