/**
 * The `package.json` of a project `resc init` writes
 * (docs/decisions/1242-init.md): ESM; `generate` before `start`, `test`
 * and `build:cli`; migrations through resc; and, when the schema asks for a
 * command-line client, its build (`tsc -p tsconfig.cli.json` into `dist/`)
 * and `bin` entry; when the schema's tokens are HS*, `token`, printing a
 * development token with `resc token` (docs/decisions/1367-access-rules.md).
 * TypeScript is the one `npm i -D typescript` gives today
 * (7.x); the generated tree names `@types/node` itself.
 */

/**
 * The file's text (two-space JSON, trailing newline).
 * @param rescSpec the dependency specifier for resc (`^0.1.0`, `file:/…/resc-0.1.0.tgz`)
 * @param bin the command-line client's name, when the schema generates one
 * @param tokens whether `resc token` can mint development tokens for the schema (HS* `jwt` settings)
 */
export function packageJson(name: string, rescSpec: string, bin?: string, tokens = false): string {
  const manifest = {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    ...(bin !== undefined ? { bin: { [bin]: "dist/cli/main.js" } } : {}),
    scripts: {
      generate: "resc generate schema.resource",
      prestart: "npm run generate",
      start: "tsx server.ts",
      pretest: "npm run generate",
      test: "node --import tsx --test test/*.test.ts",
      ...(bin !== undefined ? { "build:cli": "npm run generate && tsc -p tsconfig.cli.json" } : {}),
      typecheck: "npm run generate && tsc -p tsconfig.json",
      "migrate:diff": "resc migrate diff schema.resource",
      "migrate:deploy": "resc migrate deploy",
      "migrate:status": "resc migrate status",
      ...(tokens ? { token: "resc token schema.resource" } : {}),
    },
    dependencies: {
      "@hono/node-server": "^1.19.0",
      ...(bin !== undefined ? { "@oclif/core": "^4.14.0" } : {}),
      hono: "^4.9.0",
      resc: rescSpec,
      tsx: "^4.20.0",
    },
    devDependencies: {
      "@types/node": "^20.19.0",
      typescript: "^7.0.2",
    },
  };
  return JSON.stringify(manifest, null, 2) + "\n";
}
