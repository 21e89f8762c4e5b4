/**
 * String literals in generated code are spelled as prettier spells them
 * (decision 1321): double quotes unless the text holds more double than
 * single quotes, escaping only the chosen quote, backslashes and line breaks.
 */
import { format } from "prettier";
import { describe, expect, it } from "vitest";
import { stringLiteral } from "../../compiler/backends/ts-text.js";

describe("stringLiteral", () => {
  it.each([
    ["plain", '"plain"'],
    [`it's`, `"it's"`],
    [`say "hi"`, `'say "hi"'`],
    [`'a' "b"`, `"'a' \\"b\\""`],
    [`'a' "b" "c"`, `'\\'a\\' "b" "c"'`],
    ['{"a":"b\\\\c"}', `'{"a":"b\\\\\\\\c"}'`],
    ["two\nlines\r", '"two\\nlines\\r"'],
  ])("%j → %s", async (text, literal) => {
    expect(stringLiteral(text)).toBe(literal);
    // The literal is prettier's own spelling and means the text.
    expect(await format(`x = ${literal};\n`, { parser: "typescript" })).toBe(`x = ${literal};\n`);
    expect(new Function(`return ${literal};`)()).toBe(text);
  });
});
