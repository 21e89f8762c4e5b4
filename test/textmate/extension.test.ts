/**
 * The VS Code extension folder (editors/vscode) is complete and consistent:
 * language id `resource` for `.resource` files, a language configuration
 * with comments, brackets, folding and auto-closing, the same grammar as
 * grammar/textmate, and a client that launches `resc lsp --stdio` through
 * vscode-languageclient.
 */
import { runNode } from "../support/run.js";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GRAMMAR_FILE } from "./tokenize.js";

const DIR = path.resolve(import.meta.dirname, "../../editors/vscode");
const read = (f: string) => readFileSync(path.join(DIR, f), "utf8");

interface Manifest {
  name: string;
  publisher: string;
  main: string;
  engines: { vscode: string };
  dependencies: Record<string, string>;
  contributes: {
    languages: { id: string; extensions: string[]; configuration: string }[];
    grammars: { language: string; scopeName: string; path: string }[];
    configurationDefaults: Record<string, Record<string, unknown>>;
  };
}

const manifest = JSON.parse(read("package.json")) as Manifest;

describe("editors/vscode", () => {
  it("declares the resource language for .resource files", () => {
    expect(manifest.contributes.languages).toEqual([
      expect.objectContaining({
        id: "resource",
        extensions: [".resource"],
        configuration: "./language-configuration.json",
      }),
    ]);
    expect(manifest.contributes.configurationDefaults["[resource]"]!["editor.defaultFormatter"]).toBe(
      `${manifest.publisher}.${manifest.name}`,
    );
  });

  it("packages the same grammar as grammar/textmate (npm run sync-grammar)", () => {
    const g = manifest.contributes.grammars[0]!;
    expect(g).toMatchObject({ language: "resource", scopeName: "source.resource" });
    expect(read(g.path)).toBe(readFileSync(GRAMMAR_FILE, "utf8"));
  });

  it("has a language configuration with comments, brackets, folding and auto-closing", () => {
    const conf = JSON.parse(read("language-configuration.json")) as Record<string, unknown>;
    expect(conf["comments"]).toEqual({ lineComment: "//", blockComment: ["/*", "*/"] });
    expect(conf["brackets"]).toEqual([
      ["{", "}"],
      ["[", "]"],
      ["(", ")"],
    ]);
    expect(conf["folding"]).toBeDefined();
    expect((conf["autoClosingPairs"] as { open: string }[]).map((p) => p.open)).toEqual(
      expect.arrayContaining(["{", "[", "(", '"']),
    );
    expect(new RegExp(conf["wordPattern"] as string).exec("x @@index")?.[0]).toBe("x");
    expect("@sortable".match(new RegExp(conf["wordPattern"] as string))?.[0]).toBe("@sortable");
  });

  it("launches resc lsp --stdio through vscode-languageclient", async () => {
    expect(manifest.dependencies["vscode-languageclient"]).toBeDefined();
    const main = read(manifest.main);
    expect(main).toContain('require("vscode-languageclient/node")');
    expect(main).toContain('["lsp", "--stdio"]');
    expect(main).toContain('documentSelector: [{ language: "resource" }]');
    expect(existsSync(path.join(DIR, "package-lock.json"))).toBe(true);
    const check = await runNode(["--check", path.join(DIR, manifest.main)]);
    expect(check.code, check.stderr).toBe(0);
  });
});
