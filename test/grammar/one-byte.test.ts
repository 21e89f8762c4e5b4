/**
 * Names and SQL cut from a source that holds a character above U+00FF are
 * one-byte strings wherever their characters allow
 * (docs/decisions/1354-one-byte-names.md): otherwise every SQL statement
 * and every row object built with them is two-byte, and joining, measuring
 * and writing answers costs many times more. V8 shows a string's
 * representation in what `v8.serialize` writes: `"` before a one-byte
 * string, `c` before a two-byte one.
 */
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { buildDescriptor, compileSource } from "../../compiler/index.js";
import { lex } from "../../grammar/lexer.js";
import { parse } from "../../grammar/parse.js";
import { SourceMap } from "../../grammar/span.js";
import { encodeRow } from "../../runtime/sql/members.js";
import { rowMemberSelect } from "../../runtime/sql/row.js";

const ONE_BYTE_TAG = 0x22;
const TWO_BYTE_TAG = 0x63;

/** The tag `v8.serialize` writes before `s` (after its header and any padding). */
function tag(s: string): number | undefined {
  return v8
    .serialize(s)
    .subarray(2)
    .find((b) => b !== 0);
}

const LATIN1 = /^[\u0000-\u00ff]*$/;

/** Every string reachable from `value` (objects and arrays walked). */
function strings(value: unknown, out: string[] = [], seen = new Set<object>()): string[] {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "object" && value !== null && !seen.has(value)) {
    seen.add(value);
    for (const v of Object.values(value)) strings(v, out, seen);
  }
  return out;
}

const PAGILA = new URL("../../fixtures/pagila/pagila.resource", import.meta.url);

/** A schema whose only wide characters are in a comment and a mapped name; the rest is ASCII. */
const WIDE_SOURCE = `// Ünïcödé — “quoted”, a wide dash and quotes
enum mood { happy sad }

/// A note — with a wide dash in its doc comment.
table note {
  id      integer     @primary_key @default(nextval('public.note_id_seq'::regclass))
  title   text        @searchable
  body    text?       @computed("title || ' — ' || 'x'")
  at      timestamptz @default(now())
  feeling mood        @map("fëëlıng")

  resource "/notes" {
    ops = [crud, list]
  }
}
`;

describe("one-byte names (decision 1354)", () => {
  it("the probe tells the two representations apart", () => {
    expect(tag("actor_id")).toBe(ONE_BYTE_TAG);
    expect(tag(("ı" + "actor_id").slice(1))).toBe(TWO_BYTE_TAG);
    expect(tag("é")).toBe(ONE_BYTE_TAG);
  });

  it("the lexer gives each Latin-1 token a one-byte text and keeps wider ones as written", () => {
    const source = new SourceMap("wide.resource", WIDE_SOURCE);
    const { tokens, docComments } = lex(WIDE_SOURCE, source);
    expect(tokens.length).toBeGreaterThan(20);
    for (const t of [...tokens, ...docComments]) {
      expect(t.image).toBe(WIDE_SOURCE.slice(t.startOffset, t.startOffset + t.image.length));
      expect(tag(t.image), t.image).toBe(LATIN1.test(t.image) ? ONE_BYTE_TAG : TWO_BYTE_TAG);
    }
    expect(tokens.map((t) => t.image)).toContain('"fëëlıng"');
  });

  it("every Latin-1 string of the parsed IR is one-byte, SQL cut from the source included", () => {
    const parsed = parse(WIDE_SOURCE, "wide.resource");
    expect(parsed.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const all = strings(parsed.schema);
    expect(all).toContain("note");
    expect(all).toContain("nextval('public.note_id_seq'::regclass)");
    expect(all).toContain("fëëlıng");
    for (const s of all) expect(tag(s), s).toBe(LATIN1.test(s) ? ONE_BYTE_TAG : TWO_BYTE_TAG);
  });

  it("Pagila, whose fixture maps a domain to bıgınt: the row layouts, their SQL and the row objects are one-byte", () => {
    const text = readFileSync(PAGILA, "utf8");
    expect(LATIN1.test(text)).toBe(false);
    const compiled = compileSource(text, "pagila.resource");
    expect(compiled.ok).toBe(true);
    const service = buildDescriptor(compiled.schema);
    for (const table of service.tables) {
      expect(tag(table.name), table.name).toBe(ONE_BYTE_TAG);
      const { list, layout } = rowMemberSelect(table, "t0");
      expect(tag(list), table.name).toBe(ONE_BYTE_TAG);
      for (const lead of layout.leads) expect(tag(lead), lead).toBe(ONE_BYTE_TAG);
    }
    const actor = service.tables.find((t) => t.name === "actor")!;
    const { layout } = rowMemberSelect(actor, "t0");
    // The text node-postgres hands over for `j` is one-byte (decoded from the socket's bytes).
    const j = Buffer.from('[1, "PENELOPE", "GUINESS", "2022-02-15T09:34:33"]', "latin1").toString("latin1");
    const row = encodeRow({ j }, layout);
    expect(row).toBe(
      '{"actor_id":1,"first_name":"PENELOPE","last_name":"GUINESS","last_update":"2022-02-15T09:34:33Z"}',
    );
    expect(tag(row)).toBe(ONE_BYTE_TAG);
  });
});
