/**
 * Tokenizes `.resource` text with the committed TextMate grammar through
 * the same engine VS Code uses (vscode-textmate over the Oniguruma WASM
 * build), and renders the result as a readable scope listing.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import oniguruma from "vscode-oniguruma";
import textmate from "vscode-textmate";

const ROOT = path.resolve(import.meta.dirname, "../..");
const require = createRequire(import.meta.url);

/** The committed grammar file. */
export const GRAMMAR_FILE = path.join(ROOT, "grammar/textmate/resource.tmLanguage.json");

let loaded: Promise<textmate.IGrammar> | undefined;

/** The grammar, loaded once per test file. */
export function loadGrammar(): Promise<textmate.IGrammar> {
  loaded ??= (async () => {
    const wasm = readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
        createOnigString: (s: string) => new oniguruma.OnigString(s),
      }),
      loadGrammar: async (scope: string) =>
        scope === "source.resource" ? textmate.parseRawGrammar(readFileSync(GRAMMAR_FILE, "utf8"), GRAMMAR_FILE) : null,
    });
    const grammar = await registry.loadGrammar("source.resource");
    if (!grammar) throw new Error("the resource grammar did not load");
    return grammar;
  })();
  return loaded;
}

/** One token: its text and its scopes below `source.resource`. */
export interface Token {
  line: number;
  text: string;
  scopes: string[];
}

/** Every non-blank token of `text`, line by line. */
export async function tokenize(text: string): Promise<Token[]> {
  const grammar = await loadGrammar();
  const out: Token[] = [];
  let state = textmate.INITIAL;
  text.split(/\r?\n/).forEach((line, i) => {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) {
      const piece = line.slice(t.startIndex, t.endIndex);
      const scopes = t.scopes.slice(1);
      if (piece.trim() === "" && scopes.length === 0) continue;
      out.push({ line: i + 1, text: piece, scopes });
    }
    state = r.ruleStack;
  });
  return out;
}

/** The golden form: each source line, then one line per token with its innermost-last scopes. */
export async function scopeListing(text: string): Promise<string> {
  const tokens = await tokenize(text);
  const lines = text.split(/\r?\n/);
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    out.push(`${String(i + 1).padStart(4)} | ${line}`);
    for (const t of tokens.filter((x) => x.line === i + 1)) {
      if (t.text.trim() === "") continue;
      out.push(`       ${JSON.stringify(t.text)} ${t.scopes.join(" ")}`);
    }
  });
  return `${out.join("\n")}\n`;
}
