import { describe, expect, it } from "vitest";
import { readList, readScalar, splitChildren, unwrapGroup } from "../../runtime/query/syntax.js";

describe("value syntax", () => {
  it("reads quoted and plain scalars", () => {
    expect(readScalar("a.b")).toEqual({ ok: true, value: "a.b" });
    expect(readScalar('"a\\"b\\\\c"')).toEqual({ ok: true, value: 'a"b\\c' });
    expect(readScalar('mid"quote')).toEqual({ ok: true, value: 'mid"quote' });
    expect(readScalar('"bad\\n"')).toMatchObject({ ok: false });
    expect(readScalar('"open')).toMatchObject({ ok: false });
  });

  it("reads lists with and without the parenthesis wrapper", () => {
    expect(readList("a,b")).toEqual({ ok: true, value: ["a", "b"] });
    expect(readList("(a,b)")).toEqual({ ok: true, value: ["a", "b"] });
    expect(readList("")).toEqual({ ok: true, value: [] });
    expect(readList("()")).toEqual({ ok: true, value: [] });
    expect(readList('""')).toEqual({ ok: true, value: [""] });
    expect(readList("a,")).toEqual({ ok: true, value: ["a", ""] });
    expect(readList(",")).toEqual({ ok: true, value: ["", ""] });
    expect(readList('"x,y",z,"")')).toMatchObject({ ok: false });
    expect(readList('"x,y",z')).toEqual({ ok: true, value: ["x,y", "z"] });
    expect(readList('"x"y')).toMatchObject({ ok: false });
    expect(readList("(a")).toMatchObject({ ok: false });
    expect(readList("a(1)")).toMatchObject({ ok: false });
    expect(readList('a"b')).toMatchObject({ ok: false });
  });

  it("splits group children at top-level commas only", () => {
    expect(splitChildren('a.in.(1,2),and(b.eq.1,c.eq.2),d.hasdoc.{"k":[1,2]},e.eq."x,y"')).toEqual({
      ok: true,
      value: ["a.in.(1,2)", "and(b.eq.1,c.eq.2)", 'd.hasdoc.{"k":[1,2]}', 'e.eq."x,y"'],
    });
    expect(splitChildren("")).toEqual({ ok: true, value: [""] });
    expect(splitChildren("a(]")).toMatchObject({ ok: false, detail: "unbalanced ]" });
    expect(splitChildren("a{")).toMatchObject({ ok: false, detail: "missing }" });
  });

  it("unwraps a group only when its parenthesis closes at the end", () => {
    expect(unwrapGroup("(a,(b))")).toEqual({ ok: true, value: "a,(b)" });
    expect(unwrapGroup('(a.eq.")")')).toEqual({ ok: true, value: 'a.eq.")"' });
    expect(unwrapGroup("(a),(b)")).toMatchObject({ ok: false });
    expect(unwrapGroup("a")).toMatchObject({ ok: false });
  });
});
