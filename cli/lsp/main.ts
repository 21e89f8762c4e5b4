/**
 * Starts the language server on standard input and output: what
 * `resc lsp --stdio` runs, and what tests spawn directly through tsx.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { serveLanguage } from "./server.js";

/** resc's own version, from its package.json (two levels up from both `cli/lsp` and `dist/cli/lsp`). */
function rescVersion(): string {
  for (const up of ["../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(fileURLToPath(new URL(up, import.meta.url)), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "resc" && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return "0.0.0";
}

/** Serves the language over stdio until the client sends `exit`. */
export function startStdioServer(): void {
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  serveLanguage(connection, rescVersion());
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) startStdioServer();
