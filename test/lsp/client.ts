/**
 * A language client for tests: spawns the server as an editor would (a child
 * process speaking LSP over stdio) and talks to it with the protocol library
 * VS Code's client is built on (vscode-languageserver-protocol).
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import {
  CompletionRequest,
  createProtocolConnection,
  DefinitionRequest,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentFormattingRequest,
  DocumentSymbolRequest,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type DocumentSymbol,
  type Hover,
  type InitializeResult,
  type Location,
  type Position,
  type ProtocolConnection,
  type TextEdit,
} from "vscode-languageserver-protocol/node";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** How to start the server: the TypeScript entry through tsx (default), or the built `resc lsp --stdio`. */
export type ServerCommand = "tsx" | "bin";

/** A connected client with helpers for the requests the tests make. */
export class TestClient {
  private readonly diagnostics = new Map<string, { version?: number; items: Diagnostic[] }[]>();
  private waiters: (() => void)[] = [];
  initialized!: InitializeResult;

  private constructor(
    private readonly child: ChildProcess,
    readonly connection: ProtocolConnection,
  ) {
    connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      const list = this.diagnostics.get(p.uri) ?? [];
      const entry: { version?: number; items: Diagnostic[] } = { items: p.diagnostics };
      if (p.version !== undefined) entry.version = p.version;
      list.push(entry);
      this.diagnostics.set(p.uri, list);
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Spawns the server and runs the initialize handshake. */
  static async start(command: ServerCommand = "tsx"): Promise<TestClient> {
    const args =
      command === "tsx"
        ? ["--import", "tsx", path.join(ROOT, "cli/lsp/main.ts"), "--stdio"]
        : [path.join(ROOT, "bin/resc.js"), "lsp", "--stdio"];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
    const connection = createProtocolConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    connection.listen();
    const client = new TestClient(child, connection);
    client.initialized = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return client;
  }

  /** Opens a document. */
  async open(uri: string, text: string, version = 1): Promise<void> {
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: "resource", version, text },
    });
  }

  /** Replaces the whole text of an open document. */
  async change(uri: string, text: string, version: number): Promise<void> {
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
  }

  /** The diagnostics published for `uri` at `version` (waits for them, up to 20 s). */
  async diagnosticsOf(uri: string, version: number): Promise<Diagnostic[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const hit = (this.diagnostics.get(uri) ?? []).find((d) => d.version === version);
      if (hit) return hit.items;
      if (Date.now() > deadline) throw new Error(`no diagnostics for ${uri} version ${version}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** textDocument/hover at `position`. */
  hover(uri: string, position: Position): Promise<Hover | null> {
    return this.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
  }

  /** textDocument/completion at `position`, as a flat list. */
  async completion(uri: string, position: Position): Promise<CompletionItem[]> {
    const r: CompletionItem[] | CompletionList | null = await this.connection.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position,
    });
    return r === null ? [] : Array.isArray(r) ? r : r.items;
  }

  /** textDocument/definition at `position`: the first location, or null. */
  async definition(uri: string, position: Position): Promise<Location | null> {
    const r = await this.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position });
    if (r === null) return null;
    if (Array.isArray(r)) return (r[0] as Location | undefined) ?? null;
    return r as Location;
  }

  /** textDocument/documentSymbol. */
  async symbols(uri: string): Promise<DocumentSymbol[]> {
    return ((await this.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } })) ??
      []) as DocumentSymbol[];
  }

  /** textDocument/formatting with two-space indentation. */
  formatting(uri: string): Promise<TextEdit[] | null> {
    return this.connection.sendRequest(DocumentFormattingRequest.type, {
      textDocument: { uri },
      options: { tabSize: 2, insertSpaces: true },
    });
  }

  /** Shuts the server down the polite way and waits for the process to end; returns its exit code. */
  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once("exit", (code) => resolve(code)));
    await this.connection.sendRequest(ShutdownRequest.type);
    await this.connection.sendNotification(ExitNotification.type);
    const code = await exited;
    this.connection.dispose();
    return code;
  }
}

/** The position of the `n`-th occurrence (0-based) of `needle` in `text`, plus `delta` characters. */
export function positionOf(text: string, needle: string, delta = 0, n = 0): Position {
  let at = -1;
  for (let i = 0; i <= n; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`"${needle}" not found`);
  }
  const offset = at + delta;
  const before = text.slice(0, offset);
  const line = before.split("\n").length - 1;
  return { line, character: offset - (before.lastIndexOf("\n") + 1) };
}
