/**
 * The tracker's committed compiler outputs are current (docs/decisions/0700):
 * `examples/tracker/schema.sql` is `resc sql spec.resource`, and the
 * generated module passes the staleness check of `resc generate --check
 * spec.resource`. The app itself imports only `resc/runtime`, Hono and Node.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BACKENDS, checkGenerated, compileSource, emitAll, emitSql } from "../../compiler/index.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const APP = path.join(ROOT, "examples/tracker");
const REGENERATE =
  "run `npx resc generate spec.resource && npx resc sql spec.resource > examples/tracker/schema.sql` (docs/decisions/0700)";

function compileSpec() {
  const r = compileSource(readFileSync(path.join(ROOT, "spec.resource"), "utf8"), "spec.resource");
  if (!r.ok) throw new Error("spec.resource does not compile");
  return r.schema;
}

/** The hand-written TypeScript files under `dir` (the generated module has its own tests). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : sources(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

describe("examples/tracker", () => {
  it("commits the DDL resc sql produces", () => {
    const schema = compileSpec();
    expect(readFileSync(path.join(APP, "schema.sql"), "utf8"), REGENERATE).toBe(emitSql(schema));
  });

  it("commits every file resc generate writes (resc generate --check passes)", async () => {
    const schema = compileSpec();
    expect(schema.generate?.dir).toBe("examples/tracker/generated");
    const root = path.resolve(ROOT, schema.generate?.dir ?? "");
    // The same backends, in the same order, as `resc generate` (cli/generate.ts).
    const files = await emitAll(schema, BACKENDS);
    expect(files.map((f) => f.path)).toContain("tracker/index.ts");
    expect(await checkGenerated(files, root), REGENERATE).toEqual([]);
  });

  it("imports only resc/runtime, resc/ops, Hono, Node and its own files, never the compiler", () => {
    const allowed = /^(resc\/runtime|resc\/ops|hono|hono\/[a-z-]+|@hono\/node-server|node:[a-z/]+)$/;
    const files = sources(APP);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        const spec = m[1];
        if (spec.startsWith(".")) {
          const target = path.resolve(path.dirname(file), spec);
          expect(target.startsWith(APP + path.sep), `${path.relative(ROOT, file)} imports ${spec}`).toBe(true);
        } else {
          expect(spec, `${path.relative(ROOT, file)} imports ${spec}`).toMatch(allowed);
        }
      }
    }
  });
});
