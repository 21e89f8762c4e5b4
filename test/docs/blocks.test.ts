/**
 * Reading the pages' command blocks and their markers (test/docs/blocks.ts,
 * decision 1363): what the commands test relies on to run each block as the
 * page says, and the mistakes in a marker it refuses instead of ignoring.
 */
import { describe, expect, it } from "vitest";
import { chains, commandBlocks, parseDirectives } from "./blocks.js";

const page = [
  "# A page",
  "",
  "<!-- commands: in checkout; database pagila; server npx resc dev; expect \"total\": -->",
  "```sh",
  "createdb pagila",
  "npx resc dev x.resource",
  "```",
  "",
  "Prose.",
  "",
  "<!-- commands: after; env NOTES_BASE_URL=http://127.0.0.1:3000; omit npm test: too long -->",
  "```sh",
  "npm test",
  "```",
  "",
  "```sh",
  "echo plain",
  "```",
  "",
  "```ts",
  "const notCommands = 1;",
  "```",
].join("\n");

describe("commandBlocks", () => {
  it("finds each sh block with its marker's directives, and the defaults without one", () => {
    const blocks = commandBlocks("page.md", page);
    expect(blocks.map((b) => [b.line, b.text])).toEqual([
      [4, "createdb pagila\nnpx resc dev x.resource"],
      [12, "npm test"],
      [16, "echo plain"],
    ]);
    expect(blocks[0]!.directives).toMatchObject({
      place: "checkout",
      database: { name: "pagila" },
      servers: ["npx resc dev"],
      expect: ['"total":'],
      after: false,
    });
    expect(blocks[1]!.directives).toMatchObject({
      after: true,
      env: { NOTES_BASE_URL: "http://127.0.0.1:3000" },
      omit: [{ prefix: "npm test", reason: "too long" }],
    });
    expect(blocks[2]!.directives).toEqual(parseDirectives(""));
    expect(blocks[2]!.directives.place).toBe("project");
    expect(chains(blocks).map((c) => c.map((b) => b.line))).toEqual([[4, 12], [16]]);
  });

  it("reads a database made from a file, and a skip with its reason", () => {
    expect(parseDirectives("database postgres://app@db/app from test/docs/app-database.sql")).toMatchObject({
      database: { name: "postgres://app@db/app", from: "test/docs/app-database.sql" },
    });
    expect(parseDirectives("skip needs Docker").skip).toBe("needs Docker");
  });

  it("refuses an unknown directive, a marker before no sh block, a nested sh block, a lone after", () => {
    expect(() => parseDirectives("sever npm start")).toThrow(/unknown directive "sever"/);
    expect(() => parseDirectives("in somewhere")).toThrow(/in checkout, in project or in empty directory/);
    expect(() => parseDirectives("skip")).toThrow(/reason/);
    expect(() => commandBlocks("p.md", "<!-- commands: after -->\n\nSome prose.\n")).toThrow(
      /p\.md:1: a commands marker precedes no ```sh block/,
    );
    expect(() => commandBlocks("p.md", "<!-- commands: after -->\n```ts\nx\n```\n")).toThrow(/precedes no/);
    expect(() => commandBlocks("p.md", "- a step:\n\n  ```sh\n  echo hidden\n  ```\n")).toThrow(
      /p\.md:1: a ```sh block inside a list is not run/,
    );
    expect(() => chains(commandBlocks("p.md", "<!-- commands: after -->\n```sh\necho\n```\n"))).toThrow(
      /"after" with no block before it/,
    );
  });
});
