import { describe, expect, it } from "vitest";
import { cmp } from "../../runtime/predicate.js";
import { FILM_FILTERABLE, list, problem, problems, RATINGS, where } from "./fixture.js";

const SCALAR_OPS = ["between", "eq", "gt", "gte", "in", "lt", "lte", "ne", "neq", "nin"];
const TEXT_OPS = [
  "between",
  "contains",
  "endswith",
  "eq",
  "gt",
  "gte",
  "ilike",
  "in",
  "like",
  "lt",
  "lte",
  "ne",
  "neq",
  "nin",
  "startswith",
];

describe("operator form and bare values", () => {
  it("reads ?col=op.value", () => {
    expect(where("title=eq.x")).toEqual(cmp("title", "eq", "x"));
    expect(where("length=gt.100")).toEqual(cmp("length", "gt", 100));
  });

  it("reads a bare value as equality, dotted or not", () => {
    expect(where("title=x")).toEqual(cmp("title", "eq", "x"));
    expect(where("title=foo.bar")).toEqual(cmp("title", "eq", "foo.bar"));
    expect(where("rating=PG-13")).toEqual(cmp("rating", "eq", "PG-13"));
    expect(where("title=EQ.x")).toEqual(cmp("title", "eq", "EQ.x"));
    // an operator name without a dot is a value, except the null tests
    expect(where("title=eq")).toEqual(cmp("title", "eq", "eq"));
    expect(where("title=")).toEqual(cmp("title", "eq", ""));
  });

  it("keeps dots after the operator in the value", () => {
    expect(where("title=eq.a.b.c")).toEqual(cmp("title", "eq", "a.b.c"));
    expect(where("title=eq.in.x")).toEqual(cmp("title", "eq", "in.x"));
    expect(where("title=eq.")).toEqual(cmp("title", "eq", ""));
  });

  it("normalises neq to ne", () => {
    expect(where("length=neq.5")).toEqual(cmp("length", "ne", 5));
    expect(where("length=ne.5")).toEqual(cmp("length", "ne", 5));
  });

  it("conjoins repeated parameters in request order", () => {
    expect(where("length=gte.60&length=lt.120&title=x")).toEqual({
      kind: "and",
      children: [cmp("length", "gte", 60), cmp("length", "lt", 120), cmp("title", "eq", "x")],
    });
  });

  it("reads quoted scalar values", () => {
    expect(where([["title", 'eq."a,b"']])).toEqual(cmp("title", "eq", "a,b"));
    expect(where([["title", '"isnull"']])).toEqual(cmp("title", "eq", "isnull"));
    expect(where([["title", 'eq."say \\"hi\\" \\\\"']])).toEqual(cmp("title", "eq", 'say "hi" \\'));
    const p = problem(() => list([["title", 'eq."open']]));
    expect(p.location).toBe("query.title");
    expect(p.detail).toContain("unterminated");
  });
});

describe("scalar operators", () => {
  it("takes every ordering operator on numbers and dates", () => {
    for (const op of ["eq", "ne", "gt", "gte", "lt", "lte"] as const) {
      expect(where(`length=${op}.90`)).toEqual(cmp("length", op, 90));
    }
    expect(where("release_date=lt.2006-01-01")).toEqual(cmp("release_date", "lt", "2006-01-01"));
    expect(where("last_update=gte.2006-02-15T00:00:00Z")).toEqual(cmp("last_update", "gte", "2006-02-15T00:00:00Z"));
  });

  it("reads in and nin lists, with quoted items", () => {
    expect(where("length=in.60,90,120")).toEqual(cmp("length", "in", [60, 90, 120]));
    expect(where("length=nin.(60,90)")).toEqual(cmp("length", "nin", [60, 90]));
    expect(where([["title", 'in."a,b",c']])).toEqual(cmp("title", "in", ["a,b", "c"]));
    expect(where([["title", 'in."say \\"x\\"","back\\\\slash"']])).toEqual(
      cmp("title", "in", ['say "x"', "back\\slash"]),
    );
    expect(where([["title", 'in."(1979)",""']])).toEqual(cmp("title", "in", ["(1979)", ""]));
  });

  it("reads between as exactly two values", () => {
    expect(where("length=between.60,120")).toEqual(cmp("length", "between", [60, 120]));
    expect(where("release_date=between.(2006-01-01,2006-12-31)")).toEqual(
      cmp("release_date", "between", ["2006-01-01", "2006-12-31"]),
    );
    expect(problem(() => list("length=between.60")).detail).toContain("exactly 2 values");
    expect(problem(() => list("length=between.1,2,3")).detail).toContain("3 given");
  });

  it("takes the text-only operators on text and enum columns", () => {
    for (const op of ["like", "ilike", "contains", "startswith", "endswith"] as const) {
      expect(where(`title=${op}.A%_b`)).toEqual(cmp("title", op, "A%_b"));
    }
    // pattern values are not checked against the enum values
    expect(where("rating=like.PG%")).toEqual(cmp("rating", "like", "PG%"));
    expect(where("rating=in.G,PG")).toEqual(cmp("rating", "in", ["G", "PG"]));
  });

  it("refuses text-only operators on other scalars, listing the valid ones alphabetically", () => {
    const p = problem(() => list("length=like.1%"));
    expect(p.location).toBe("query.length");
    expect(p.detail).toContain("like");
    expect(p.detail).toContain("length");
    expect(p.allowed).toEqual([...SCALAR_OPS, "isnull", "notnull"].sort());
  });

  it("lists the text set (with neq) for a non-nullable text column", () => {
    expect(problem(() => list("title=has.x")).allowed).toEqual(TEXT_OPS);
  });

  it("gives enum columns the text set and names their values on a bad value", () => {
    expect(problem(() => list("rating=hasdoc.{}")).allowed).toEqual([...TEXT_OPS, "isnull", "notnull"].sort());
    const p = problem(() => list("rating=eq.PG13"));
    expect(p).toMatchObject({ location: "query.rating", value: "PG13", allowed: RATINGS });
    expect(p.detail).toContain("rating");
    expect(problem(() => list("rating=in.G,XX")).allowed).toEqual(RATINGS);
  });

  it("gives bytea only the equality set", () => {
    expect(where("poster=eq.\\x00")).toEqual(cmp("poster", "eq", "\\x00"));
    expect(problem(() => list("poster=gt.\\x00")).allowed).toEqual([
      "eq",
      "in",
      "isnull",
      "ne",
      "neq",
      "nin",
      "notnull",
    ]);
  });

  it("refuses a value that does not parse, naming the column at query.<col>", () => {
    const p = problem(() => list("length=gt.long"));
    expect(p).toMatchObject({ location: "query.length", value: "long" });
    expect(p.detail).toContain("length");
    const many = problems(() => list("length=in.1,x,y"));
    expect(many.map((i) => i.value)).toEqual(["x", "y"]);
  });

  it("refuses an empty list for in", () => {
    expect(problem(() => list("length=in.")).detail).toContain("1 to 100 values");
    expect(problem(() => list("length=in.()")).detail).toContain("0 given");
  });
});

describe("null tests", () => {
  it("takes isnull and notnull without a value on nullable columns", () => {
    expect(where("length=isnull")).toEqual(cmp("length", "isnull"));
    expect(where("rating=notnull")).toEqual(cmp("rating", "notnull"));
    expect(where("attrs=isnull")).toEqual(cmp("attrs", "isnull"));
    expect(where("special_features=notnull")).toEqual(cmp("special_features", "notnull"));
  });

  it("refuses them on non-nullable columns, without listing them", () => {
    const p = problem(() => list("title=isnull"));
    expect(p.location).toBe("query.title");
    expect(p.detail).toContain("isnull");
    expect(p.allowed).toEqual(TEXT_OPS);
    expect(p.allowed).not.toContain("isnull");
  });

  it("refuses a value after isnull", () => {
    expect(problem(() => list("length=isnull.true")).detail).toContain("takes no value");
    expect(problem(() => list("length=isnull.")).detail).toContain("takes no value");
  });
});

describe("array operators", () => {
  const ARRAY_OPS = ["eq", "has", "hasall", "hasany", "isnull", "ne", "neq", "nhas", "nhasall", "nhasany", "notnull"];

  it("compares whole arrays with eq and ne using the list syntax", () => {
    expect(where("special_features=eq.Trailers,Commentaries")).toEqual(
      cmp("special_features", "eq", ["Trailers", "Commentaries"]),
    );
    expect(where("special_features=Trailers,Commentaries")).toEqual(
      cmp("special_features", "eq", ["Trailers", "Commentaries"]),
    );
    expect(where("special_features=neq.(Trailers)")).toEqual(cmp("special_features", "ne", ["Trailers"]));
    // an empty list is the empty array
    expect(where("special_features=eq.")).toEqual(cmp("special_features", "eq", []));
    expect(where("special_features=eq.()")).toEqual(cmp("special_features", "eq", []));
  });

  it("reads has and nhas as one element", () => {
    expect(where("special_features=has.Trailers")).toEqual(cmp("special_features", "has", "Trailers"));
    expect(where("special_features=nhas.Deleted Scenes")).toEqual(cmp("special_features", "nhas", "Deleted Scenes"));
  });

  it("reads the set operators as lists", () => {
    for (const op of ["hasany", "hasall", "nhasany", "nhasall"] as const) {
      expect(where(`special_features=${op}.a,b`)).toEqual(cmp("special_features", op, ["a", "b"]));
    }
    expect(problem(() => list("special_features=hasany.")).detail).toContain("1 to 100 values");
  });

  it("refuses ordering, in, between, contains and pattern operators, listing the array set", () => {
    for (const op of ["gt", "lte", "in", "nin", "between", "contains", "like", "startswith", "hasdoc"]) {
      const p = problem(() => list(`special_features=${op}.a`));
      expect(p.location).toBe("query.special_features");
      expect(p.detail).toContain(op);
      expect(p.allowed).toEqual(ARRAY_OPS);
    }
  });

  it("omits the null tests for a non-nullable array", () => {
    expect(problem(() => list("tags=isnull")).allowed).toEqual([
      "eq",
      "has",
      "hasall",
      "hasany",
      "ne",
      "neq",
      "nhas",
      "nhasall",
      "nhasany",
    ]);
  });
});

describe("document operators", () => {
  it("reads hasdoc and nhasdoc with a JSON document value", () => {
    expect(where([["attrs", 'hasdoc.{"a":1,"b":[true]}']])).toEqual(cmp("attrs", "hasdoc", { a: 1, b: [true] }));
    expect(where([["attrs", 'nhasdoc.{"a":"x.y"}']])).toEqual(cmp("attrs", "nhasdoc", { a: "x.y" }));
  });

  it("refuses a bare value, ordering and pattern operators, and malformed JSON", () => {
    const bare = problem(() => list([["attrs", '{"a":1}']]));
    expect(bare.location).toBe("query.attrs");
    expect(bare.detail).toContain("bare value");
    expect(bare.allowed).toEqual(["hasdoc", "isnull", "nhasdoc", "notnull"]);
    for (const op of ["eq", "gt", "like", "has"]) {
      expect(problem(() => list(`attrs=${op}.x`)).allowed).toEqual(["hasdoc", "isnull", "nhasdoc", "notnull"]);
    }
    expect(problem(() => list("attrs=hasdoc.{a:1}")).detail).toContain("JSON");
  });
});

describe("unknown, hidden and non-filterable columns", () => {
  it("calls an unknown name an unknown parameter and lists the filterable columns", () => {
    const p = problem(() => list("nope=eq.1"));
    expect(p.location).toBe("query.nope");
    expect(p.detail).toContain("unknown parameter");
    expect(p.allowed).toEqual(FILM_FILTERABLE);
  });

  it("refuses a hidden column exactly like an unknown one and never lists it", () => {
    const hidden = problem(() => list("secret=eq.1"));
    const unknown = problem(() => list("nope=eq.1"));
    expect(hidden.detail.replace("secret", "X")).toBe(unknown.detail.replace("nope", "X"));
    expect(hidden.allowed).not.toContain("secret");
    expect(JSON.stringify(hidden)).not.toContain('"secret"');
  });

  it("says a visible column is not filterable", () => {
    const p = problem(() => list("description=eq.x"));
    expect(p.location).toBe("query.description");
    expect(p.detail).toContain("not filterable");
    expect(p.allowed).toEqual(FILM_FILTERABLE);
  });

  it("refuses computed columns the resource does not compute", () => {
    expect(problem(() => list("internal_note=eq.x")).detail).toContain("unknown parameter");
  });

  it("refuses an unknown operator naming the column", () => {
    // `foo` is not an operator, so this is a bare value: fine for text
    expect(where("title=foo.x")).toEqual(cmp("title", "eq", "foo.x"));
    // a bare value that does not decode and starts like an operator names the operator, listing the column's
    const p = problem(() => list("length=foo.x"));
    expect(p).toMatchObject({ location: "query.length", value: "foo" });
    expect(p.allowed).toEqual([...SCALAR_OPS, "isnull", "notnull"].sort());
    expect(p.detail).toMatch(/^unknown operator foo for column length; read as a bare value, foo\.x is not valid/);
  });

  it("names an unknown operator on an enum column rather than calling the value bad", () => {
    const p = problem(() => list("rating=approx.G"));
    expect(p).toMatchObject({ location: "query.rating", value: "approx" });
    expect(p.allowed).toEqual([...TEXT_OPS, "isnull", "notnull"].sort());
    expect(p.detail).toContain("unknown operator approx for column rating");
    // its value part alone is a valid rating: what is unknown is the operator
    expect(where("rating=eq.G")).toEqual(cmp("rating", "eq", "G"));
    // a bare value that is no operator-like word stays a value problem, with the enum values
    expect(problem(() => list("rating=PG-14"))).toMatchObject({
      value: "PG-14",
      allowed: RATINGS,
    });
    expect(problem(() => list("length=1.5")).detail).toContain("invalid value for column length");
  });

  it("reports every problem of the request at once", () => {
    const items = problems(() => list("nope=1&length=like.x&rating=eq.Z&title=isnull"));
    expect(items.map((i) => i.location)).toEqual(["query.nope", "query.length", "query.rating", "query.title"]);
  });
});
