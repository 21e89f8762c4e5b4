/**
 * The `.resource` language server (docs/decisions/1102-language-server.md): diagnostics as you type,
 * hover, completion, go to definition, document symbols and formatting.
 * Every answer is computed from the compiler itself — `compileSource` for
 * diagnostics, the formatter for formatting — so the editor and `resc check`
 * / `resc fmt` never disagree (docs/decisions/1102-language-server.md).
 */
import { fileURLToPath } from "node:url";
import { TextDocuments, TextDocumentSyncKind, type Connection, type InitializeResult } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { formatSource, FormatterBug } from "../../grammar/format/index.js";
import { IncrementalCompiler } from "../../compiler/compile.js";
import { Analysis } from "./analysis.js";
import { complete } from "./completion.js";
import { hover } from "./hover.js";
import { toLspDiagnostic, toRange } from "./positions.js";
import { declarationSpan, resolve } from "./resolve.js";
import { documentSymbols } from "./symbols.js";

/** The name shown in diagnostics' spans: the file path for `file:` URIs, else the URI. */
function fileName(uri: string): string {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : uri;
  } catch {
    return uri;
  }
}

/**
 * How long after an edit its diagnostics are computed: long enough for a
 * completion or hover sent with the keystroke to be answered first, and for
 * a burst of keystrokes to be compiled once (bench/COMPILER.md).
 */
const DIAGNOSTICS_DELAY_MS = 20;

/** The capabilities the server announces. */
export const CAPABILITIES: InitializeResult["capabilities"] = {
  textDocumentSync: TextDocumentSyncKind.Incremental,
  hoverProvider: true,
  completionProvider: { triggerCharacters: ["@", "(", "[", ",", ":", "="] },
  definitionProvider: true,
  documentSymbolProvider: true,
  documentFormattingProvider: true,
};

/**
 * Serves the language over `connection` until the client exits. Documents
 * are analysed once per version; nothing is read from disk.
 */
export function serveLanguage(connection: Connection, version: string): void {
  const documents = new TextDocuments(TextDocument);
  const cache = new Map<string, { version: number; analysis: Analysis; compiler: IncrementalCompiler }>();

  // One incremental compiler per document: an edit re-reads only the declarations it touched (bench/COMPILER.md).
  const analysisOf = (doc: TextDocument): Analysis => {
    const hit = cache.get(doc.uri);
    if (hit && hit.version === doc.version) return hit.analysis;
    const compiler = hit?.compiler ?? new IncrementalCompiler();
    const analysis = Analysis.compile(doc.getText(), fileName(doc.uri), compiler);
    cache.set(doc.uri, { version: doc.version, analysis, compiler });
    return analysis;
  };

  connection.onInitialize((): InitializeResult => ({
    capabilities: CAPABILITIES,
    serverInfo: { name: "resc", version },
  }));

  // Diagnostics are computed once the messages already received are answered: a completion typed with the edit
  // does not wait for them, and a burst of edits is compiled once, at its last version (bench/COMPILER.md).
  const pending = new Map<string, NodeJS.Timeout>();
  documents.onDidChangeContent(({ document }) => {
    clearTimeout(pending.get(document.uri));
    pending.set(
      document.uri,
      setTimeout(() => {
        pending.delete(document.uri);
        // After the immediates already queued, among them the writes of answers just given, so none waits on this.
        setImmediate(() => {
          const current = documents.get(document.uri);
          if (!current || pending.has(current.uri)) return;
          const diagnostics = analysisOf(current).result.diagnostics.map(toLspDiagnostic);
          void connection.sendDiagnostics({ uri: current.uri, version: current.version, diagnostics });
        });
      }, DIAGNOSTICS_DELAY_MS),
    );
  });
  documents.onDidClose(({ document }) => {
    clearTimeout(pending.get(document.uri));
    pending.delete(document.uri);
    cache.delete(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  connection.onHover(({ textDocument, position }) => {
    const doc = documents.get(textDocument.uri);
    if (!doc) return null;
    const h = hover(analysisOf(doc), doc.offsetAt(position));
    if (!h) return null;
    return {
      contents: { kind: "markdown", value: h.markdown },
      range: { start: doc.positionAt(h.start), end: doc.positionAt(h.end) },
    };
  });

  connection.onCompletion(({ textDocument, position }) => {
    const doc = documents.get(textDocument.uri);
    if (!doc) return [];
    const offset = doc.offsetAt(position);
    const text = doc.getText();
    const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
    const word = /@{0,2}[A-Za-z0-9_]*$/.exec(text.slice(lineStart, offset))?.[0] ?? "";
    const range = { start: doc.positionAt(offset - word.length), end: position };
    // Before the edit's compile: the new text's tokens with the last compiled schema (Analysis.retext).
    const hit = cache.get(doc.uri);
    const analysis = hit && hit.version !== doc.version ? hit.analysis.retext(text, offset) : analysisOf(doc);
    return complete(analysis, { offset, range });
  });

  connection.onDefinition(({ textDocument, position }) => {
    const doc = documents.get(textDocument.uri);
    if (!doc) return null;
    const r = resolve(analysisOf(doc), doc.offsetAt(position));
    const span = r ? declarationSpan(r.meaning) : undefined;
    return span ? { uri: doc.uri, range: toRange(span) } : null;
  });

  connection.onDocumentSymbol(({ textDocument }) => {
    const doc = documents.get(textDocument.uri);
    return doc ? documentSymbols(analysisOf(doc).schema) : [];
  });

  connection.onDocumentFormatting(({ textDocument }) => {
    const doc = documents.get(textDocument.uri);
    if (!doc) return null;
    try {
      const r = formatSource(doc.getText(), fileName(doc.uri));
      // A file that does not parse is left alone; its diagnostics already say why.
      if (!r.ok || !r.changed) return [];
      return [
        { range: { start: { line: 0, character: 0 }, end: doc.positionAt(doc.getText().length) }, newText: r.text },
      ];
    } catch (e) {
      if (e instanceof FormatterBug) {
        connection.console.error(`resc fmt: ${e.message}; the document was left as it is`);
        return [];
      }
      throw e;
    }
  });

  documents.listen(connection);
  connection.listen();
}
