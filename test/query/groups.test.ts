import { describe, expect, it } from "vitest";
import { and, cmp, not, or } from "../../runtime/predicate.js";
import { FILM_FILTERABLE, list, problem, problems, where } from "./fixture.js";

describe("group parameters", () => {
  it("reads or=(…) with a parenthesised list inside", () => {
    expect(where("or=(rating.in.(G,PG),length.gt.100)")).toEqual(
      or(cmp("rating", "in", ["G", "PG"]), cmp("length", "gt", 100)),
    );
  });

  it("reads and=(…) and conjoins it with the other filters", () => {
    expect(where("title=x&and=(length.gte.60,length.lte.90)")).toEqual(
      and(cmp("title", "eq", "x"), cmp("length", "gte", 60), cmp("length", "lte", 90)),
    );
  });

  it("reads not=(a,b) as NOT (a AND b) and not=(a) as NOT a", () => {
    expect(where("not=(rating.eq.R,length.gt.120)")).toEqual(
      not(and(cmp("rating", "eq", "R"), cmp("length", "gt", 120))),
    );
    expect(where("not=(rating.eq.R)")).toEqual(not(cmp("rating", "eq", "R")));
  });

  it("conjoins several not= parameters", () => {
    expect(where("not=(rating.eq.R)&not=(rating.eq.G)")).toEqual(
      and(not(cmp("rating", "eq", "R")), not(cmp("rating", "eq", "G"))),
    );
  });

  it("nests and(…), or(…) and not(…) children", () => {
    expect(where("or=(and(length.gt.100,rating.eq.G),not(title.like.A%),special_features.nhas.Trailers)")).toEqual(
      or(
        and(cmp("length", "gt", 100), cmp("rating", "eq", "G")),
        not(cmp("title", "like", "A%")),
        cmp("special_features", "nhas", "Trailers"),
      ),
    );
  });

  it("keeps the null tests, dots and array lists inside children", () => {
    expect(where("or=(length.isnull,title.eq.a.b,special_features.eq.(Trailers,Commentaries))")).toEqual(
      or(
        cmp("length", "isnull"),
        cmp("title", "eq", "a.b"),
        cmp("special_features", "eq", ["Trailers", "Commentaries"]),
      ),
    );
  });

  it("reads quoted values, with commas and parentheses, inside children", () => {
    const q: [string, string][] = [
      ["or", '(title.eq."a,b",title.in.("c,d",e),title.eq."x (1979)",title.eq."q\\"uote")'],
    ];
    expect(where(q)).toEqual(
      or(
        cmp("title", "eq", "a,b"),
        cmp("title", "in", ["c,d", "e"]),
        cmp("title", "eq", "x (1979)"),
        cmp("title", "eq", 'q"uote'),
      ),
    );
  });

  it("keeps balanced brackets of a value in one child", () => {
    expect(where([["or", '(attrs.hasdoc.{"a":1,"b":[2,3]},attrs.isnull,title.eq.Alien (1979))']])).toEqual(
      or(cmp("attrs", "hasdoc", { a: 1, b: [2, 3] }), cmp("attrs", "isnull"), cmp("title", "eq", "Alien (1979)")),
    );
  });
});

describe("group nesting depth", () => {
  it("accepts three levels, the parameter counting as one", () => {
    expect(where("or=(and(not(length.gt.1)))")).toEqual(not(cmp("length", "gt", 1)));
  });

  it("refuses a fourth level, for every group kind alike", () => {
    for (const q of [
      "or=(and(or(not(length.gt.1))))",
      "not=(or(and(not(length.gt.1))))",
      "and=(length.gt.1,or(title.eq.x,and(not(length.lt.5))))",
    ]) {
      const [kind] = q.split("=");
      const p = problem(() => list(q));
      expect(p.location).toBe(`query.${kind}`);
      expect(p.detail).toContain("nested too deeply");
    }
  });
});

describe("group syntax refusals", () => {
  it("requires the operator in a child", () => {
    const p = problem(() => list("or=(title.x,length.gt.5)"));
    expect(p.location).toBe("query.or");
    expect(p.detail).toContain("unknown operator x");
    expect(problem(() => list("or=(title)")).detail).toContain("column.operator.value");
  });

  it("explains that a list inside a group needs parentheses", () => {
    const p = problem(() => list("or=(rating.in.G,PG,length.gt.100)"));
    expect(p).toMatchObject({ location: "query.or", value: "PG" });
    expect(p.detail).toContain("child 2");
    expect(p.detail).toContain("in.(a,b)");
  });

  it("refuses a missing value, a missing group wrapper, an empty group and unbalanced brackets", () => {
    expect(problem(() => list("or=(title.eq)")).detail).toContain("value is required");
    expect(problem(() => list("or=title.eq.x")).detail).toContain("(child,child");
    expect(problem(() => list("or=()")).detail).toContain("empty group");
    expect(problem(() => list("or=(title.eq.a,)")).detail).toContain("empty child");
    expect(problem(() => list("or=(title.eq.a(b)")).detail).toContain("missing )");
    expect(problem(() => list("or=(title.eq.x),(title.eq.y)")).detail).toContain("after the group");
    expect(problem(() => list("or=(title.eq.a]b)")).detail).toContain("unbalanced ]");
    expect(problem(() => list('or=(title.eq.12"x)')).detail).toContain("unterminated");
    expect(problem(() => list('or=(title.eq."x"y)')).detail).toContain("after the closing quote");
    expect(problem(() => list("or=(and(title.eq.x)y)")).detail).toContain("after the group");
  });

  it("checks children like column parameters, reporting at the group parameter", () => {
    const items = problems(() => list("or=(secret.eq.1,length.gt.x,special_features.gt.a)"));
    expect(items.map((i) => i.location)).toEqual(["query.or", "query.or", "query.or"]);
    expect(items[0].detail).toContain("unknown column secret");
    expect(items[0].allowed).toEqual(FILM_FILTERABLE);
    expect(items[1].detail).toContain("invalid value for column length");
    expect(items[2].allowed).toContain("hasany");
  });
});
