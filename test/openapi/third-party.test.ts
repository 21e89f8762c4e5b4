/**
 * The served documents through the tools users drive them with (docs/decisions/1011-openapi-lint-clean.md): Redocly's `recommended` ruleset finds no error and no warning, and
 * orval and @hey-api/openapi-ts generate clients that compile under
 * `strict`, with `filter` a plain string parameter and `sort` an array.
 * Run for the Pagila fixture and the reference application.
 */
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitOpenApi, printOpenApi } from "../../compiler/index.js";
import { runNode } from "../support/run.js";
import { compileFile } from "../support/service.js";

const ROOT = path.resolve(".");
const bin = (p: string): string => path.join(ROOT, "node_modules", p);
const REDOCLY = bin("@redocly/cli/bin/cli.js");
const ORVAL = bin("orval/dist/bin/orval.js");
const HEY = bin("@hey-api/openapi-ts/bin/run.js");
const TSC = bin("typescript/bin/tsc");
const OPENAPI_TS = bin("openapi-typescript/bin/cli.js");

const documents = [
  ["Pagila", "fixtures/pagila/pagila.resource"],
  ["spec.resource", "spec.resource"],
] as const;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-third-party-"));
  // The generated programs import their client libraries by package name, as a user's project would.
  await symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  for (const [name, file] of documents) {
    const { schema } = await compileFile(file);
    await writeFile(path.join(dir, `${slug(name)}.json`), printOpenApi(emitOpenApi(schema)));
  }
  await writeFile(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        strict: true,
        noEmit: true,
        lib: ["ES2022", "DOM", "DOM.Iterable"],
        skipLibCheck: true,
      },
      include: ["**/*.ts"],
    }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function slug(name: string): string {
  return name.replace(/\W+/g, "-").toLowerCase();
}

describe.each(documents)("%s", (name) => {
  const doc = (): string => path.join(dir, `${slug(name)}.json`);

  it("passes Redocly's recommended ruleset with no error or warning", async () => {
    const r = await runNode([REDOCLY, "lint", "--extends", "recommended", "--format", "json", doc()], {
      cwd: dir,
      timeout: 120_000,
    });
    const report = JSON.parse(r.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(r.code).toBe(0);
  });

  it("generates an orval fetch client and an @hey-api client that compile", async () => {
    const out = path.join(dir, slug(name));
    const orval = await runNode(
      [ORVAL, "--input", doc(), "--output", path.join(out, "orval/client.ts"), "--client", "fetch"],
      {
        cwd: dir,
        timeout: 120_000,
      },
    );
    expect(orval.code, orval.stderr + orval.stdout).toBe(0);
    const hey = await runNode([HEY, "-i", doc(), "-o", path.join(out, "hey")], { cwd: dir, timeout: 120_000 });
    expect(hey.code, hey.stderr + hey.stdout).toBe(0);

    const types = await readFile(path.join(out, "hey/types.gen.ts"), "utf8");
    expect(types).toMatch(/filter\?: string;/);
    expect(types).toMatch(/sort\?: Array<string>;/);
    const orvalText = await readFile(path.join(out, "orval/client.ts"), "utf8");
    expect(orvalText).toMatch(/filter\?: string;/);

    const tsc = await runNode([TSC, "-p", dir], { cwd: dir, timeout: 180_000 });
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
  });
});

describe("openapi-fetch from the served document (docs/clients.md)", () => {
  it("types the program docs/clients.md shows, with sort and select as arrays", async () => {
    const out = path.join(dir, "openapi-fetch");
    const gen = await runNode([OPENAPI_TS, path.join(dir, "pagila.json"), "-o", path.join(out, "pagila-api.d.ts")], {
      cwd: dir,
      timeout: 120_000,
    });
    expect(gen.code, gen.stderr).toBe(0);
    await writeFile(
      path.join(out, "program.ts"),
      [
        'import createClient from "openapi-fetch";',
        'import type { paths } from "./pagila-api";',
        'const client = createClient<paths>({ baseUrl: "http://127.0.0.1:3000" });',
        "export async function longest(): Promise<string[]> {",
        '  const { data } = await client.GET("/films", {',
        '    params: { query: { sort: ["-length", "title"], select: ["film_id", "title"], rating: ["eq.PG"] } },',
        "  });",
        "  return (data?.items ?? []).map((f) => String(f.title));",
        "}",
        "",
      ].join("\n"),
    );
    const tsc = await runNode([TSC, "-p", dir], { cwd: dir, timeout: 180_000 });
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
  });
});
