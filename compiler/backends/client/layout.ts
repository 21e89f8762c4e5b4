/**
 * Where the client packages go (spec: Generator configuration;
 * docs/decisions/1050-client-layout.md):
 *
 * - `cli_dir` set: the typed client in `<cli_dir>/client/`, the command tree
 *   in `<cli_dir>/commands/`;
 * - else `client_dir` set: the typed client only, in `<client_dir>/`;
 * - else, or when the schema serves no resource: neither.
 *
 * Paths are relative to the `generate` block's dir.
 */
import type { Schema } from "../../../language/ir.js";

/** The directories of the typed client and the command tree, and the binary's names. */
export interface ClientLayout {
  /** Directory of the typed client package, or undefined when none is emitted. */
  client?: string;
  /** Directory of the command-tree package, or undefined when none is emitted. */
  commands?: string;
  /** The binary's name: `cli_name`, else the schema file's base name. */
  cliName: string;
  /** Prefix of the environment variables: the binary's name upper-cased, other characters as `_` (`TRACKER`). */
  envPrefix: string;
}

/** `my-tool` → `MY_TOOL`: the prefix of `<PREFIX>_BASE_URL` and `<PREFIX>_TOKEN`. */
export function envPrefix(cliName: string): string {
  return cliName.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "CLI";
}

function present(dir: string | undefined): dir is string {
  return dir !== undefined && dir.trim() !== "";
}

/** Joins a directory (possibly empty or `.`) and a relative path with `/`. */
export function joinPath(dir: string, file: string): string {
  const clean = dir.replace(/\\/g, "/").replace(/^\.(\/|$)/, "").replace(/\/+$/, "");
  if (file === "") return clean;
  return clean === "" ? file : `${clean}/${file}`;
}

/** The layout of a valid schema's client packages. */
export function clientLayout(schema: Schema): ClientLayout {
  const g = schema.generate;
  const stem = schema.file.replace(/^.*[\\/]/, "").replace(/\.resource$/, "");
  const cliName = present(g?.cliName) ? g.cliName : stem;
  const layout: ClientLayout = { cliName, envPrefix: envPrefix(cliName) };
  if (!schema.tables.some((t) => t.resource)) return layout;
  if (present(g?.cliDir)) {
    layout.client = joinPath(g.cliDir, "client");
    layout.commands = joinPath(g.cliDir, "commands");
  } else if (present(g?.clientDir)) {
    layout.client = joinPath(g.clientDir, "");
  }
  return layout;
}
