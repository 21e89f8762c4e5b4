/**
 * The shared lexer and parser skip Chevrotain's grammar validations to start
 * faster (bench/COMPILER.md); this builds both with the validations on, so a token
 * or rule definition error still fails the suite.
 */
import { describe, expect, it } from "vitest";
import { Lexer } from "../../grammar/chevrotain.js";
import { allTokens, LEXER_CONFIG } from "../../grammar/lexer.js";
import { ResourceParser } from "../../grammar/parser.js";

describe("grammar validity", () => {
  it("the parser passes Chevrotain's validations (no ambiguity, recursion or duplicate)", () => {
    // performSelfAnalysis throws "Parser Definition Errors detected" when a validation fails.
    expect(() => new ResourceParser({ validate: true })).not.toThrow();
  });

  it("the lexer passes Chevrotain's validations, and would be optimised", () => {
    const lexer = new Lexer([...allTokens], { ...LEXER_CONFIG, skipValidations: false, ensureOptimizations: true });
    expect(lexer.lexerDefinitionErrors).toEqual([]);
  });
});
