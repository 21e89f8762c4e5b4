/**
 * The command-tree backend (spec: Command-line client): an oclif command
 * tree `<cli_name> <resource> list | get <id> | create | update <id> |
 * delete <id>`, one subcommand per exposed operation, emitted as two files:
 *
 * - `cli.ts`: the fixed machinery (commands built from descriptions,
 *   output, failures, flag precedence);
 * - `index.ts`: the service's resource descriptions as data, and
 *   `buildCommandTree(options)`, which a hand-written main calls.
 *
 * It imports `@oclif/core` and the typed client's `http.ts` only: never
 * the runtime or the compiler, so a binary holds no database credential
 * (docs/decisions/1052-command-tree.md).
 */
import type { ServiceDescriptor } from "../../../runtime/descriptor.js";
import path from "node:path";
import type { Schema } from "../../../language/ir.js";
import { buildDescriptor } from "../../descriptor.js";
import { finalForm } from "../final-form.js";
import { joinPath } from "../client/index.js";
import { jsonConstant } from "../ts-text.js";
import { envPrefix } from "../client/layout.js";
import { generatedHeader, type GeneratedFile } from "../../generated-file.js";
import { TREE_CORE } from "./core-text.js";
import { resourceSpecs } from "./specs.js";

export { resourceSpecs, type ResourceSpec, type FieldSpec, type FilterSpec } from "./specs.js";

/** Options of {@link emitCommandTree}. */
export interface CommandTreeOptions {
  /** The binary's name (`cli_name`); also, upper-cased, the prefix of its environment variables. */
  cliName: string;
  /** Where the typed client package is, relative to the same root as `dir`. */
  clientDir: string;
  /** The schema's descriptor, when the caller built it already. */
  service?: ServiceDescriptor;
}

/** How the tree core's source (core/cli.ts) imports the client core; the emitted file imports the generated client's `http.ts`. */
const CORE_CLIENT_IMPORT = 'from "../../client/core/http.js"';

/** The module specifier of the client core as seen from the tree's directory. */
function clientImport(treeDir: string, clientDir: string): string {
  const rel = path.posix.relative(joinPath(treeDir, "") || ".", joinPath(clientDir, "http.ts") || "http.ts");
  const spec = rel.replace(/\.ts$/, ".js");
  return spec.startsWith(".") ? spec : `./${spec}`;
}

/**
 * The command-tree package of a valid schema, as files under `dir`
 * (relative to the `generate` block's dir); empty when the schema serves
 * no resource.
 * @throws Error when the schema does not resolve (validate it first)
 */
export async function emitCommandTree(
  schema: Schema,
  dir: string,
  options: CommandTreeOptions,
): Promise<GeneratedFile[]> {
  const service = options.service ?? buildDescriptor(schema);
  const specs = resourceSpecs(service);
  if (specs.length === 0) return [];
  const header = generatedHeader(schema);
  if (!TREE_CORE.includes(CORE_CLIENT_IMPORT))
    throw new Error(`the tree core no longer imports the client core ${CORE_CLIENT_IMPORT}`);
  const core = TREE_CORE.replace(CORE_CLIENT_IMPORT, `from ${JSON.stringify(clientImport(dir, options.clientDir))}`);
  const info = {
    bin: options.cliName,
    envPrefix: envPrefix(options.cliName),
    version: service.version,
    description: service.title,
  };
  const index = [
    header,
    `import { createCommandTree, type CommandTree, type ResourceSpec, type TreeOptions } from "./cli.js";\n`,
    `export { createCommandTree, formatJson, type CommandTree, type ResourceSpec, type TreeOptions } from "./cli.js";\n`,
    "/** The served resources and what each operation accepts, as the commands need them. */",
    `${jsonConstant("export const resources: ResourceSpec[]", specs)}\n`,
    "/**",
    ` * The \`${options.cliName}\` command tree: \`${options.cliName} <resource> <operation>\`. Pass a client`,
    ` * value to set the base address, token or transport (a flag still wins;`,
    ` * the environment, \`${info.envPrefix}_BASE_URL\` and \`${info.envPrefix}_TOKEN\`, comes after it).`,
    " */",
    "export function buildCommandTree(options: TreeOptions = {}): CommandTree {",
    // Written as prettier writes it (an object it keeps open, then one argument per line), so no formatter runs (bench/COMPILER.md).
    "  return createCommandTree(",
    "    {",
    ...Object.entries(info).map(([k, v]) => `      ${k}: ${JSON.stringify(v)},`),
    "    },",
    "    resources,",
    "    options,",
    "  );",
    "}",
  ].join("\n");
  // The core is embedded as prettier prints it (scripts/embed-cores.mjs): only the index needs settling.
  return [
    { path: joinPath(dir, "cli.ts"), contents: `${header}\n${core}` },
    { path: joinPath(dir, "index.ts"), contents: await finalForm(`${index}\n`) },
  ];
}
