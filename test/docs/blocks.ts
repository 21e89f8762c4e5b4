/**
 * The command blocks of a Markdown page and what the comment before each
 * says about running it (docs/decisions/1363-docs-commands-tested.md). The
 * page is read with `marked`, so a fence is a fence as a renderer sees it.
 *
 * A marker is an HTML comment on the line before a ```sh fence:
 * `<!-- commands: DIRECTIVE; DIRECTIVE … -->`. The directives:
 *
 * - `in checkout` | `in project` | `in empty directory`: where the block
 *   starts (default `in project`: a fresh directory outside the repository
 *   where resc is installed from the checkout, as the README's "Using resc
 *   in your own project" says).
 * - `after`: goes on from the block before it on the page, in the directory
 *   that block ended in, with its servers and database.
 * - `server PREFIX`: the line starting with PREFIX serves until the blocks
 *   are done (a second terminal, for a reader); it runs in the background
 *   and the next line waits until its port answers.
 * - `database NAME` | `database URL from FILE`: the block's database. A
 *   name is the one the block creates (`createdb NAME`); a URL is created
 *   from FILE (a path in the repository) before the block. Either is given a
 *   name of this run and dropped afterwards.
 * - `checkout PATH`: PATH stands for the checkout (`/path/to/resc`).
 * - `env NAME=VALUE`: set for the block.
 * - `first COMMAND`: runs before the block (what the prose asks of the
 *   reader, "edit the schema").
 * - `omit PREFIX: REASON`: that line is not run.
 * - `expect TEXT`: the block's output holds TEXT.
 * - `skip REASON`: the block cannot run here; the reason is reported.
 */
import { marked, type Token, type Tokens } from "marked";

/** Where a block starts: a copy of the repository, a project of one's own with resc installed, or nothing. */
export type Place = "checkout" | "project" | "empty";

/** What a marker says. */
export interface Directives {
  place: Place;
  after: boolean;
  servers: string[];
  database?: { name: string; from?: string };
  checkout?: string;
  env: Record<string, string>;
  first: string[];
  omit: { prefix: string; reason: string }[];
  expect: string[];
  skip?: string;
}

/** One ```sh block of a page. */
export interface CommandBlock {
  /** The page, relative to the repository. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The commands, as printed. */
  text: string;
  directives: Directives;
}

const MARKER = /^<!--\s*commands:\s*([\s\S]*?)\s*-->\s*$/;

/**
 * The directives of a marker's body (what follows `commands:`).
 * @throws Error naming the directive when one is unknown or malformed
 */
export function parseDirectives(body: string): Directives {
  const d: Directives = { place: "project", after: false, servers: [], env: {}, first: [], omit: [], expect: [] };
  for (const part of body.split(";").map((p) => p.trim())) {
    if (part === "") continue;
    const [word, ...rest] = part.split(/\s+/);
    const arg = part.slice(word!.length).trim();
    switch (word) {
      case "in":
        if (arg === "checkout" || arg === "project") d.place = arg;
        else if (arg === "empty directory") d.place = "empty";
        else throw new Error(`"in ${arg}": say in checkout, in project or in empty directory`);
        break;
      case "after":
        if (rest.length > 0) throw new Error(`"after" takes nothing, not "${arg}"`);
        d.after = true;
        break;
      case "server":
        d.servers.push(arg);
        break;
      case "database": {
        const m = /^(\S+)(?:\s+from\s+(\S+))?$/.exec(arg);
        if (!m) throw new Error(`"database ${arg}": say database NAME or database URL from FILE`);
        d.database = { name: m[1]!, ...(m[2] ? { from: m[2] } : {}) };
        break;
      }
      case "checkout":
        d.checkout = arg;
        break;
      case "env": {
        const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(arg);
        if (!m) throw new Error(`"env ${arg}": say env NAME=VALUE`);
        d.env[m[1]!] = m[2]!;
        break;
      }
      case "first":
        d.first.push(arg);
        break;
      case "omit": {
        const at = arg.indexOf(":");
        if (at < 0) throw new Error(`"omit ${arg}": say omit PREFIX: REASON`);
        d.omit.push({ prefix: arg.slice(0, at).trim(), reason: arg.slice(at + 1).trim() });
        break;
      }
      case "expect":
        d.expect.push(arg);
        break;
      case "skip":
        if (arg === "") throw new Error(`"skip" needs its reason`);
        d.skip = arg;
        break;
      default:
        throw new Error(
          `unknown directive "${word}" (in, after, server, database, checkout, env, first, omit, expect, skip)`,
        );
    }
    if (arg === "" && ["server", "checkout", "first", "expect"].includes(word!))
      throw new Error(`"${word}" needs an argument`);
  }
  return d;
}

/**
 * Every ```sh block of `markdown`, each with the directives of the marker
 * before it (the defaults when there is none).
 * @throws Error naming the line of a marker that precedes no ```sh block, of a bad marker, or of a ```sh block
 *   nested where its marker cannot be read (in a list, a quote)
 */
export function commandBlocks(file: string, markdown: string): CommandBlock[] {
  const tokens = marked.lexer(markdown);
  const out: CommandBlock[] = [];
  let offset = 0;
  let pending: { line: number; directives: Directives } | undefined;
  const lineAt = (at: number): number => markdown.slice(0, at).split("\n").length;
  for (const token of tokens) {
    const line = lineAt(offset);
    offset += token.raw.length;
    if (token.type === "space") continue;
    if (token.type === "html") {
      const m = MARKER.exec(token.raw.trim());
      if (m) {
        if (pending) throw new Error(`${file}:${pending.line}: a commands marker precedes no \`\`\`sh block`);
        try {
          pending = { line, directives: parseDirectives(m[1]!) };
        } catch (e) {
          throw new Error(`${file}:${line}: ${(e as Error).message}`);
        }
        continue;
      }
    }
    if (token.type === "code" && (token as Tokens.Code).lang === "sh") {
      out.push({
        file,
        line,
        text: (token as Tokens.Code).text,
        directives: pending?.directives ?? parseDirectives(""),
      });
      pending = undefined;
      continue;
    }
    if (pending) throw new Error(`${file}:${pending.line}: a commands marker precedes no \`\`\`sh block`);
    const nested: Token[] = [];
    marked.walkTokens([token], (t) => {
      if (t !== token && t.type === "code" && (t as Tokens.Code).lang === "sh") nested.push(t);
    });
    if (nested.length > 0)
      throw new Error(`${file}:${line}: a \`\`\`sh block inside a ${token.type} is not run; move it out`);
  }
  if (pending) throw new Error(`${file}:${pending.line}: a commands marker precedes no \`\`\`sh block`);
  return out;
}

/**
 * The blocks in runs: a block and the `after` blocks that follow it.
 * @throws Error naming the line of an `after` block with nothing before it, or one that also says where it starts
 */
export function chains(blocks: readonly CommandBlock[]): CommandBlock[][] {
  const out: CommandBlock[][] = [];
  for (const b of blocks) {
    if (!b.directives.after) {
      out.push([b]);
      continue;
    }
    const last = out.at(-1);
    if (!last || last[0]!.file !== b.file) throw new Error(`${b.file}:${b.line}: "after" with no block before it`);
    last.push(b);
  }
  return out;
}
