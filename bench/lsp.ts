/**
 * `npm run bench:lsp`: the language server on the synthetic schema of
 * 1,000 tables (bench/synthetic.ts), measured over stdio as an editor talks
 * to it (bench/COMPILER.md): `resc lsp --stdio` is spawned, the file opened, then
 * each edit is sent as an incremental change (a range and its new text)
 * and timed until the diagnostics of that version arrive; hover and
 * completion are timed on the analysed document, and completion also
 * right after a keystroke, before the diagnostics of that keystroke.
 * Prints a Markdown table of the median and worst of each (`--out FILE`
 * writes it too). Options: `--tables 1000 --rounds 10`.
 */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import {
  CompletionRequest,
  DidChangeTextDocumentNotification,
  HoverRequest,
  type Position,
} from "vscode-languageserver-protocol/node";
import { TestClient } from "../test/lsp/client.js";
import { syntheticSchema } from "./synthetic.js";

const { values: opts } = parseArgs({
  options: {
    tables: { type: "string", default: "1000" },
    rounds: { type: "string", default: "10" },
    out: { type: "string" },
  },
});
const tables = Number(opts.tables);
const rounds = Number(opts.rounds);
const uri = "file:///bench/synthetic.resource";
let text = syntheticSchema(tables);

/** Line and character of `offset` in the current text. */
function positionAt(offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split("\n").length - 1;
  return { line, character: offset - (before.lastIndexOf("\n") + 1) };
}

/** Offset of the first `needle` after the declaration of table number `n`. */
function offsetIn(n: number, needle: string): number {
  const table = text.indexOf(`table t${String(n).padStart(4, "0")} {`);
  const at = text.indexOf(needle, table);
  if (table < 0 || at < 0) throw new Error(`${needle} not found in table ${n}`);
  return at;
}

const client = await TestClient.start("bin");
let version = 1;

/**
 * Prepares replacing `length` characters at `offset` with `insert` as one
 * incremental change; `send()` sends it and resolves with the new version.
 * The positions are worked out beforehand, so a timing started just before
 * `send()` counts the server, not this client's arithmetic on a large text.
 */
function prepareEdit(offset: number, length: number, insert: string): { send(): Promise<number> } {
  const range = { start: positionAt(offset), end: positionAt(offset + length) };
  const after = text.slice(0, offset) + insert + text.slice(offset + length);
  return {
    async send() {
      text = after;
      version++;
      await client.connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version },
        contentChanges: [{ range, text: insert }],
      });
      return version;
    },
  };
}

/** {@link prepareEdit} and `send()` at once, for edits that are not timed. */
const edit = (offset: number, length: number, insert: string): Promise<number> =>
  prepareEdit(offset, length, insert).send();

const ms = (start: number): number => performance.now() - start;
const samples: Record<string, number[]> = {};
const record = (name: string, value: number): void => void (samples[name] ??= []).push(value);

try {
  let start = performance.now();
  await client.open(uri, text, version);
  await client.diagnosticsOf(uri, version);
  record("open: first diagnostics", ms(start));

  for (let round = 0; round < rounds; round++) {
    // Spread the edits over the file: the first, the middle and the last tables.
    const n = 1 + Math.floor(((round * 7919) % tables) * 0.999);
    // A keystroke that keeps the file valid: a column renamed by one character.
    const at = offsetIn(n, "  notes") + "  notes".length;
    const e1 = prepareEdit(at, 0, "x");
    start = performance.now();
    const v1 = await e1.send();
    await client.diagnosticsOf(uri, v1);
    record("diagnostics after a keystroke (valid)", ms(start));

    // A keystroke that makes an error (an unknown attribute), and its undo.
    const attr = offsetIn(n, "@filterable") + "@filterable".length;
    const e2 = prepareEdit(attr, 0, "x");
    start = performance.now();
    const v2 = await e2.send();
    const errors = await client.diagnosticsOf(uri, v2);
    record("diagnostics after a keystroke (error)", ms(start));
    if (!errors.some((d) => typeof d.message === "string" && d.message.includes("Unknown attribute")))
      throw new Error("the error edit was not reported");
    const e3 = prepareEdit(attr, 1, "");
    start = performance.now();
    const v3 = await e3.send();
    await client.diagnosticsOf(uri, v3);
    record("diagnostics after undoing it", ms(start));

    // Hover on a reference target and completion of an attribute, on the analysed document.
    const target = offsetIn(Math.max(2, n), "@ref(prev, ") + "@ref(prev, ".length + 2;
    start = performance.now();
    const h = await client.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: positionAt(target),
    });
    record("hover", ms(start));
    if (h === null) throw new Error("no hover on a table name");

    // The request follows the keystroke at once, as an editor sends them: its position is worked out beforehand.
    const typed = offsetIn(n, "  notes") + "  notes      text?".length;
    const cursor = positionAt(typed);
    cursor.character += 2;
    const e4 = prepareEdit(typed, 0, " @");
    start = performance.now();
    const v4 = await e4.send();
    const items = await client.connection.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position: cursor,
    });
    record("completion right after typing `@` (keystroke sent to answer)", ms(start));
    if (items === null || (Array.isArray(items) ? items : items.items).length === 0) throw new Error("no completion");
    await client.diagnosticsOf(uri, v4);
    start = performance.now();
    await client.connection.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position: positionAt(offsetIn(n, "  notes") + "  notes      text? @".length),
    });
    record("completion (analysed document)", ms(start));
    const v5 = await edit(offsetIn(n, "  notes") + "  notes      text?".length, 2, "");
    await client.diagnosticsOf(uri, v5);
  }
} finally {
  await client.stop();
}

const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
const rows = [
  `Language server over stdio (\`resc lsp --stdio\`), synthetic schema of ${tables} tables (${text.split("\n").length} lines), ${rounds} rounds; milliseconds.`,
  "",
  "| measurement | median | worst |",
  "|---|---:|---:|",
  ...Object.entries(samples).map(([name, xs]) => {
    const s = sorted(xs);
    return `| ${name} | ${s[Math.floor((s.length - 1) / 2)]!.toFixed(0)} | ${s[s.length - 1]!.toFixed(0)} |`;
  }),
];
const report = rows.join("\n") + "\n";
process.stdout.write(report);
if (opts.out) await writeFile(opts.out, report);
