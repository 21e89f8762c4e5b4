/**
 * The generated Hono module is real code: it type-checks under strict
 * TypeScript importing only `hono` and `resc/runtime`, and mounting it
 * serves the same routes `resc dev` serves (docs/decisions/0210-generated-module.md).
 */
import { runNode } from "./support/run.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitHono, writeGenerated } from "../compiler/index.js";
import type { Hooks } from "../runtime/hooks.js";
import type { ServiceDescriptor } from "../runtime/descriptor.js";
import { hooks as tenantHooks } from "./fixtures-hooks/tenant.js";
import { createTestDatabase, type TestDatabase } from "./support/db.js";
import { compileText } from "./support/service.js";
import { ungovernedSpecText } from "./support/ungoverned.js";

const ROOT = path.resolve(import.meta.dirname, "..");
// Inside the repository so that `hono` resolves from node_modules.
const dir = mkdtempSync(path.join(ROOT, "test", ".generated-"));
let db: TestDatabase;
let files: { path: string; contents: string }[];

beforeAll(async () => {
  // Without its access model (test/support/ungoverned.ts): the tenant hooks confine it, no token needed.
  const { schema, ddl } = compileText(ungovernedSpecText(), "spec.resource");
  files = await emitHono(schema);
  await writeGenerated(files, dir);
  db = await createTestDatabase("generated");
  await db.executor.script(ddl);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db?.drop();
});

describe("generated Hono module", () => {
  it("imports nothing but hono and resc/runtime", () => {
    for (const f of files) {
      const imports = [...f.contents.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]);
      for (const spec of imports) expect(spec === "hono" || spec === "resc/runtime" || spec.startsWith(".")).toBe(true);
    }
  });

  it("type-checks under strict TypeScript", async () => {
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        skipLibCheck: true,
        types: [],
        paths: { "resc/runtime": [path.join(ROOT, "runtime/index.ts")] },
      },
      include: ["./**/*.ts"],
    };
    writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
    const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
    const r = await runNode([tsc, "-p", path.join(dir, "tsconfig.json")]);
    expect(r.stdout + r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  it("mounts every exposed operation and nothing else", async () => {
    const entry = files.find((f) => f.path.endsWith("index.ts"));
    expect(entry).toBeDefined();
    const mod = (await import(path.join(dir, entry!.path))) as {
      mount: (app: Hono, o: { db: unknown; hooks: Hooks }) => { ok: boolean };
      service: { tables: { name: string; resource?: { path: string; ops: Record<string, boolean> } }[] };
    };
    const app = new Hono();
    // spec.resource's @@scoped and soft-delete tables mount only with BeforeQuery hooks.
    expect(mod.mount(app, { db: db.executor, hooks: tenantHooks(mod.service as ServiceDescriptor) }).ok).toBe(true);
    for (const t of mod.service.tables) {
      if (!t.resource) continue;
      const list = await app.request(t.resource.path);
      expect(list.status, `${t.resource.path} list`).toBe(t.resource.ops.list ? 200 : 404);
      const del = await app.request(`${t.resource.path}/1`, { method: "DELETE" });
      if (!t.resource.ops.delete) expect(del.status, `${t.resource.path} delete`).toBe(404);
      else expect([204, 404, 400]).toContain(del.status);
    }
  });
});
