// @ts-check
/**
 * The VS Code client of the .resource language server. It starts
 * `resc lsp --stdio` (from the setting `resc.server.command`, else the
 * workspace's node_modules/.bin/resc, else `resc` on the PATH) and lets
 * vscode-languageclient carry diagnostics, hover, completion, definitions,
 * symbols and formatting. Highlighting comes from the TextMate grammar in
 * syntaxes/, a copy of grammar/textmate/resource.tmLanguage.json.
 *
 * Plain JavaScript on purpose: the folder installs as it is, with no build
 * step (docs/editor.md).
 */
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

/** @type {LanguageClient | undefined} */
let client;

/**
 * The resc executable to run.
 * @returns {string}
 */
function serverCommand() {
  const configured = vscode.workspace.getConfiguration("resc").get("server.command", "");
  if (typeof configured === "string" && configured.trim() !== "") return configured.trim();
  const bin = process.platform === "win32" ? "resc.cmd" : "resc";
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const local = path.join(folder.uri.fsPath, "node_modules", ".bin", bin);
    if (fs.existsSync(local)) return local;
  }
  return bin;
}

/** @returns {LanguageClient} */
function createClient() {
  const args = vscode.workspace.getConfiguration("resc").get("server.args", ["lsp", "--stdio"]);
  const command = serverCommand();
  /** @type {import("vscode-languageclient/node").ServerOptions} */
  const server = {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args, transport: TransportKind.stdio },
  };
  return new LanguageClient("resc", "resc .resource language server", server, {
    documentSelector: [{ language: "resource" }],
  });
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  client = createClient();
  context.subscriptions.push(
    vscode.commands.registerCommand("resc.restartServer", async () => {
      if (client) await client.stop();
      client = createClient();
      await client.start();
    }),
  );
  try {
    await client.start();
  } catch (e) {
    void vscode.window.showErrorMessage(
      `resc: could not start "${serverCommand()} lsp --stdio" (${e instanceof Error ? e.message : String(e)}). ` +
        "Install resc in the workspace (npm install resc) or set resc.server.command.",
    );
  }
}

async function deactivate() {
  if (client) await client.stop();
  client = undefined;
}

module.exports = { activate, deactivate };
