import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (decision 1323).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";
import type { Schema } from "../language/ir.js";

/** The generate block `resc init` adds to a schema that has none. */
const GENERATE_BLOCK = (name: string): string =>
  `\ngenerate {\n  dir      = "generated"\n  package  = "app"\n  cli_dir  = "cli"\n  cli_name = "${name}"\n}\n`;

/**
 * `resc init [DIR]`: a new project that runs with `npm install && npm start`
 * and passes `npm test` (docs/decisions/1242-init.md): a schema with a
 * `generate` block, `server.ts` and `app.ts` mounting the generated module
 * and its API description, `hooks.ts`, the first migration, tests, a
 * command-line client to build, and a README. The files are copied from
 * `templates/init/` in the resc package. `--schema FILE` starts from a
 * schema of the user's instead of the notes example. The notes example
 * has authentication on (docs/decisions/1367-access-rules.md): an `auth`
 * block whose HS256 secret is read from `<NAME>_JWT_SECRET`, each caller
 * seeing only their own notes; `npm start` verifies with the development
 * secret while that is unset, and `npm run token` prints a token. Refuses a
 * non-empty directory unless `--force`.
 */
export default class Init extends RescCommand {
  static override description = "Start a new resc project in DIR (default: the current directory).";
  static override examples = [
    "<%= config.bin %> init notes && cd notes && npm install && npm start",
    "<%= config.bin %> init shop --schema shop.resource",
  ];
  static override args = { dir: Args.string({ description: "the project directory", default: "." }) };
  static override flags = {
    force: Flags.boolean({
      description: "write into a directory that is not empty (existing files are kept unless overwritten)",
    }),
    name: Flags.string({ description: "the package name (default: the directory's name)" }),
    schema: Flags.string({
      description: "start from this .resource file instead of the notes example (its first migration is written)",
    }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { compileSource } = await import("../compiler/compile.js");
    const { formatDiagnostics } = await import("../grammar/index.js");
    const { migrationText } = await import("./migrate/files.js");
    const { pendingSteps } = await import("./migrate/pending.js");
    const { rescSource } = await import("./init/resc-source.js");
    const { packageJson } = await import("./init/package-json.js");
    const { stubbedHooksModule } = await import("./init/hooks-module.js");
    const { projectReadme } = await import("./init/readme.js");
    const { envPrefix } = await import("../compiler/backends/client/layout.js");
    const { buildDescriptor } = await import("../compiler/descriptor.js");
    const { developmentAlgorithm } = await import("./token/mint.js");
    const { developmentTokenArguments, shellWords } = await import("../runtime/auth/development.js");
    const { args, flags } = await this.parse(Init);
    const dir = path.resolve(args.dir);
    const existing = await readdir(dir).catch(() => [] as string[]);
    if (existing.length > 0 && !flags.force) {
      this.fail(
        `${dir} is not empty (${existing.slice(0, 3).join(", ")}${existing.length > 3 ? ", …" : ""}); choose an empty directory or pass --force`,
      );
    }
    const name =
      (flags.name ?? path.basename(dir))
        .toLowerCase()
        .replace(/[^a-z0-9-]+/g, "-")
        .replace(/^-+|-+$/g, "") || "api";
    const root = fileURLToPath(new URL("../../", import.meta.url));
    const templates = path.join(root, "templates", "init");
    const pkg = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { version: string };

    let schemaText: string;
    if (flags.schema) {
      schemaText = await readFile(flags.schema, "utf8").catch((e: NodeJS.ErrnoException) =>
        this.fail(`cannot read ${flags.schema}: ${e.code ?? String(e)}`),
      );
    } else
      schemaText = (await readFile(path.join(templates, "schema.resource"), "utf8"))
        .replace('"notes"\n}', `"${name}"\n}`)
        // The variable is the project's: two projects on one machine keep their secrets apart.
        .replaceAll("NOTES_JWT_SECRET", `${envPrefix(name)}_JWT_SECRET`);
    let compiled = compileSource(schemaText, "schema.resource");
    if (compiled.ok && compiled.schema.generate === undefined) {
      schemaText = schemaText.replace(/\n*$/, "\n") + GENERATE_BLOCK(name);
      compiled = compileSource(schemaText, "schema.resource");
    }
    if (!compiled.ok) {
      process.stderr.write(formatDiagnostics(compiled.diagnostics, schemaText) + "\n");
      this.fail(`${flags.schema ?? "the example schema"} does not compile; resc init writes nothing`);
    }
    const schema = compiled.schema;
    const layout = projectLayout(schema);
    const first = await pendingSteps(schema, path.join(dir, "migrations"));
    const source = await rescSource(root, pkg.version);
    const collection = schema.tables.find((t) => t.resource?.ops.includes("list"))?.resource?.path ?? "/";
    // Development tokens: what `resc token` (and so `npm run token`) can mint for the schema, HS* settings only.
    const service = buildDescriptor(schema);
    const auth = service.auth;
    // With the role and the claims the schema requires: without them `npm run token` mints nothing (decision 1242).
    const tokenArgs = shellWords(developmentTokenArguments(service));
    let secretEnv: string | undefined;
    try {
      developmentAlgorithm(auth, "schema.resource");
      secretEnv = auth!.jwt!.secretEnv;
    } catch {
      secretEnv = undefined;
    }

    const template = (file: string): Promise<string> => readFile(path.join(templates, file), "utf8");
    const app = (await template("app.ts")).replaceAll("./generated/app/", `./${layout.module}/`);
    const hooks = flags.schema
      ? stubbedHooksModule(await template("hooks-stubbed.ts"), schema, layout.module)
      : await template("hooks.ts");
    const bin = layout.bin ?? name;
    const readme = projectReadme(await template("README.md"), {
      bin,
      ...(secretEnv !== undefined ? { secretEnv } : {}),
      tokenEnv: `${envPrefix(bin)}_TOKEN`,
      tokenArgs,
      ...(flags.schema ? { collection } : {}),
      ...(auth?.anonymous !== undefined ? { anonymous: auth.anonymous } : {}),
    });
    const files: [string, string][] = [
      ["package.json", packageJson(name, source.spec, layout.bin, secretEnv !== undefined)],
      ["schema.resource", schemaText],
      ["app.ts", app],
      ["server.ts", await template("server.ts")],
      ["hooks.ts", hooks],
      [
        "test/smoke.test.ts",
        (await template("test/smoke.test.ts")).replaceAll("../generated/app/", `../${layout.module}/`),
      ],
      ["test/tokens.ts", (await template("test/tokens.ts")).replaceAll("../generated/app/", `../${layout.module}/`)],
      ...(flags.schema ? [] : [["test/notes.test.ts", await template("test/notes.test.ts")] as [string, string]]),
      ["migrations/0001_init.sql", migrationText("schema.resource", first.steps)],
      ["README.md", readme],
      [".gitignore", await template("gitignore")],
      ["tsconfig.json", await template("tsconfig.json")],
    ];
    if (layout.tree !== undefined) {
      files.push(
        ["cli/main.ts", (await template("cli/main.ts")).replaceAll("../generated/cli/", `../${layout.tree}/`)],
        ["tsconfig.cli.json", await template("tsconfig.cli.json")],
      );
    }
    for (const [file, text] of files) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    const cd = path.relative(process.cwd(), dir);
    this.log(
      [
        `wrote ${files.length} files in ${dir}; resc comes from ${source.from} (${source.spec})`,
        "next:",
        ...(cd ? [`  cd ${cd}`] : []),
        "  npm install",
        `  npm start    # http://127.0.0.1:3000${collection}, API description at /docs`,
        ...(secretEnv !== undefined
          ? [
              `  TOKEN=$(npm run -s token -- ${tokenArgs})    # in another terminal: a development token`,
              `  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:3000${collection}`,
            ]
          : []),
        "  npm test",
        ...(layout.tree !== undefined ? [`  npm run build:cli && npx ${layout.bin} --help`] : []),
      ].join("\n"),
    );
  }
}

/** Where the generated module and command tree of `schema` land, relative to the project, and the binary's name. */
function projectLayout(schema: Schema): { module: string; tree?: string; bin?: string } {
  const g = schema.generate;
  const dir = (g?.dir ?? "generated").replace(/\/+$/, "");
  return {
    module: `${dir}/${g?.package ?? "api"}`,
    ...(g?.cliDir !== undefined ? { tree: `${dir}/${g.cliDir}`, bin: g.cliName ?? "api" } : {}),
  };
}
