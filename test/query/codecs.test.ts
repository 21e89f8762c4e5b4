import { describe, expect, it } from "vitest";
import { decodeJson, decodeValue } from "../../runtime/query/index.js";
import { ProblemError } from "../../runtime/problem.js";
import { column, film, problem, RATINGS } from "./fixture.js";

const col = (name: string) => film.columns.find((c) => c.name === name)!;

describe("decodeValue (URL text)", () => {
  it("decodes integers within the column's range", () => {
    expect(decodeValue(col("release_year"), "2006")).toBe(2006);
    expect(decodeValue(col("release_year"), "-2147483648")).toBe(-2147483648);
    expect(decodeValue(col("length"), "+32767")).toBe(32767);
    for (const bad of ["2147483648", "1.5", "1e3", "", "abc", " 1"]) {
      expect(() => decodeValue(col("release_year"), bad)).toThrow(ProblemError);
    }
    // smallint columns are range-checked to 16 bits
    const p = problem(() => decodeValue(col("length"), "32768"));
    expect(p).toMatchObject({ location: "query.length", value: "32768" });
    expect(p.detail).toContain("length");
    expect(p.detail).toContain("-32768 to 32767");
  });

  it("decodes bigints as bigint, range-checked to 64 bits", () => {
    expect(decodeValue(col("views"), "9223372036854775807")).toBe(9223372036854775807n);
    expect(() => decodeValue(col("views"), "9223372036854775808")).toThrow(ProblemError);
  });

  it("keeps numeric as its decimal text", () => {
    expect(decodeValue(col("rental_rate"), "0.99")).toBe("0.99");
    expect(decodeValue(col("rental_rate"), "12345678901234567890.123456789")).toBe("12345678901234567890.123456789");
    expect(decodeValue(col("rental_rate"), ".5")).toBe(".5");
    expect(decodeValue(col("rental_rate"), "1e3")).toBe("1e3");
    for (const bad of ["NaN", "Infinity", "1,5", "0x10", "", "."]) {
      expect(() => decodeValue(col("rental_rate"), bad)).toThrow(ProblemError);
    }
  });

  it("refuses numerics PostgreSQL's numeric cannot hold, which it would refuse only when the statement runs", () => {
    // Its edges: 131072 digits before the point, 16383 after (the written fraction counts, trailing zeros included).
    for (const good of ["9.9e131071", "12345e131067", "1e-16383", "0e999999", "0.001e131074", "-1e131071"])
      expect(decodeValue(col("rental_rate"), good)).toBe(good);
    for (const bad of ["1e200000", "1e131072", "-1e131072", "12345e131068", "1.5e-16383", "0e-20000", "0e1073741823"]) {
      const p = problem(() => decodeValue(col("rental_rate"), bad));
      expect(p).toMatchObject({ location: "query.rental_rate", value: bad });
      expect(p.detail).toContain("numeric range");
    }
  });

  it("decodes floats as finite numbers", () => {
    expect(decodeValue(col("score"), "2.5")).toBe(2.5);
    expect(decodeValue(col("score"), "-1e-3")).toBe(-0.001);
    for (const bad of ["NaN", "Infinity", "1e400", "abc"])
      expect(() => decodeValue(col("score"), bad)).toThrow(ProblemError);
  });

  it("refuses what a real cannot hold: past its range, or rounding to zero from a value that is not", () => {
    const real = column("ratio", "real", "float");
    for (const good of ["3.4028235e38", "1e-45", "0", "-1e-40"]) expect(decodeValue(real, good)).toBe(Number(good));
    for (const bad of ["3.4028236e38", "1e300", "1e-46", "-1e39"])
      expect(() => decodeValue(real, bad)).toThrow(ProblemError);
    expect(decodeValue(col("score"), "1e300")).toBe(1e300);
  });

  it("takes only true and false as booleans", () => {
    expect(decodeValue(col("active"), "true")).toBe(true);
    expect(decodeValue(col("active"), "false")).toBe(false);
    for (const bad of ["t", "f", "1", "0", "TRUE", "yes"])
      expect(() => decodeValue(col("active"), bad)).toThrow(ProblemError);
  });

  it("validates dates as real calendar dates", () => {
    expect(decodeValue(col("release_date"), "2006-02-15")).toBe("2006-02-15");
    expect(decodeValue(col("release_date"), "2004-02-29")).toBe("2004-02-29");
    for (const bad of [
      "2006-02-30",
      "2005-02-29",
      "1900-02-29",
      "2006-13-01",
      "0000-01-01",
      "2006-2-15",
      "20060215",
      "2006-02-15T00:00:01Z",
      "2006-02-15T12:00:00Z",
      "2006-02-15T00:00:00+02:00",
      "2006-02-15T00:00:00.001Z",
      "2006-02-30T00:00:00Z",
    ]) {
      expect(() => decodeValue(col("release_date"), bad), bad).toThrow(ProblemError);
    }
    expect(decodeValue(col("release_date"), "2000-02-29")).toBe("2000-02-29");
  });

  it("takes a date back in the form reads give it, midnight UTC (docs/decisions/0310-date-forms.md)", () => {
    for (const form of [
      "2006-02-15T00:00:00Z",
      "2006-02-15T00:00:00.000000Z",
      "2006-02-15T00:00Z",
      "2006-02-15T00:00:00+00:00",
      "2006-02-15T00:00:00-00:00",
      "2006-02-15T00:00:00",
    ]) {
      expect(decodeValue(col("release_date"), form), form).toBe("2006-02-15");
    }
    expect(() => decodeValue(col("release_date"), "2006-02-15T10:30:00Z")).toThrow(/a date has no time of day/);
  });

  it("reads timestamptz as RFC 3339 with an offset, canonicalised", () => {
    const ts = col("last_update");
    expect(decodeValue(ts, "2006-02-15T04:34:33Z")).toBe("2006-02-15T04:34:33Z");
    expect(decodeValue(ts, "2006-02-15t04:34:33.123456z")).toBe("2006-02-15T04:34:33.123456Z");
    expect(decodeValue(ts, "2006-02-15 04:34:33+02:00")).toBe("2006-02-15T04:34:33+02:00");
    expect(decodeValue(ts, "2006-02-15T04:34-05:30")).toBe("2006-02-15T04:34-05:30");
    // an unencoded + arrives as a space
    expect(decodeValue(ts, "2006-02-15T04:34:33 02:00")).toBe("2006-02-15T04:34:33+02:00");
    // a bare date is midnight UTC
    expect(decodeValue(ts, "2006-02-15")).toBe("2006-02-15T00:00:00Z");
    for (const bad of [
      "2006-02-15T04:34:33",
      "2006-02-15T25:00:00Z",
      "2006-02-15T04:60:00Z",
      "2006-02-30T00:00:00Z",
      "2006-02-15T04:34:33+16:00",
      "yesterday",
    ]) {
      expect(() => decodeValue(ts, bad), bad).toThrow(ProblemError);
    }
  });

  it("reads timestamp without time zone and refuses an offset", () => {
    expect(decodeValue(col("shot_at"), "2006-02-15T04:34:33")).toBe("2006-02-15T04:34:33");
    expect(decodeValue(col("shot_at"), "2006-02-15")).toBe("2006-02-15T00:00:00");
    expect(problem(() => decodeValue(col("shot_at"), "2006-02-15T04:34:33Z")).detail).toContain("no time zone");
  });

  it("validates times, uuids and bytea", () => {
    expect(decodeValue(col("starts"), "23:59:59.5")).toBe("23:59:59.5");
    expect(decodeValue(col("starts"), "08:00")).toBe("08:00");
    for (const bad of ["24:00", "12:60", "8:00", "12:00:61"])
      expect(() => decodeValue(col("starts"), bad)).toThrow(ProblemError);
    expect(decodeValue(col("external_id"), "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")).toBe(
      "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    );
    expect(() => decodeValue(col("external_id"), "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}")).toThrow(ProblemError);
    expect(decodeValue(col("poster"), "\\x0aFF")).toBe("\\x0aFF");
    expect(() => decodeValue(col("poster"), "\\x0")).toThrow(ProblemError);
    // base64, the form responses carry, reads back to the same bytes
    expect(decodeValue(col("poster"), "CgD/")).toBe("\\x0a00ff");
    expect(() => decodeValue(col("poster"), "CgD")).toThrow(ProblemError);
  });

  it("checks enum values and lists them in declaration order", () => {
    expect(decodeValue(col("rating"), "PG-13")).toBe("PG-13");
    const p = problem(() => decodeValue(col("rating"), "pg"));
    expect(p).toMatchObject({ location: "query.rating", value: "pg", allowed: RATINGS });
    expect(p.detail).toContain("rating");
  });

  it("refuses NUL in text and decodes one element of an array column", () => {
    expect(decodeValue(col("title"), "ACADEMY DINOSAUR")).toBe("ACADEMY DINOSAUR");
    expect(() => decodeValue(col("title"), "a\u0000b")).toThrow(ProblemError);
    expect(decodeValue(col("special_features"), "Trailers")).toBe("Trailers");
  });

  it("refuses a lone surrogate in text, keeping a whole pair", () => {
    expect(decodeValue(col("title"), "x\u{1F600}y")).toBe("x\u{1F600}y");
    for (const lone of ["x\ud800y", "x\udc00", "\ud800"])
      expect(problem(() => decodeValue(col("title"), lone)).detail).toMatch(/lone UTF-16 surrogate/);
  });

  it("reads a jsonb value as canonical JSON text", () => {
    expect(decodeValue(col("attrs"), '{ "a" : 1 }')).toBe('{"a":1}');
    expect(() => decodeValue(col("attrs"), "{a:1}")).toThrow(ProblemError);
  });
});

describe("decodeJson (body values)", () => {
  it("refuses a document holding NUL or a lone surrogate in a string or a key, which jsonb cannot store", () => {
    expect(decodeJson(col("attrs"), { a: ["x\u{1F600}"] })).toEqual({ a: ["x\u{1F600}"] });
    for (const doc of [{ a: "x\u0000y" }, { a: ["\ud800"] }, { "k\u0000": 1 }])
      expect(() => decodeJson(col("attrs"), doc)).toThrow(/JSON document's text may not contain/);
    expect(() => decodeJson(col("title"), "x\udfffy")).toThrow(ProblemError);
  });

  it("takes the JSON type of each kind", () => {
    expect(decodeJson(col("title"), "x")).toBe("x");
    expect(decodeJson(col("length"), 120)).toBe(120);
    expect(decodeJson(col("views"), 12)).toBe(12n);
    expect(decodeJson(col("views"), "9007199254740993")).toBe(9007199254740993n);
    expect(decodeJson(col("score"), 1.5)).toBe(1.5);
    expect(decodeJson(col("active"), false)).toBe(false);
    expect(decodeJson(col("release_date"), "2006-02-15")).toBe("2006-02-15");
    expect(decodeJson(col("last_update"), "2006-02-15T04:34:33Z")).toBe("2006-02-15T04:34:33Z");
    expect(decodeJson(col("rating"), "R")).toBe("R");
  });

  it("accepts numeric as a JSON number or decimal string, keeping decimal text", () => {
    expect(decodeJson(col("rental_rate"), "4.99")).toBe("4.99");
    expect(decodeJson(col("rental_rate"), 4.99)).toBe("4.99");
    expect(() => decodeJson(col("rental_rate"), "four")).toThrow(ProblemError);
    expect(() => decodeJson(col("rental_rate"), true)).toThrow(ProblemError);
  });

  it("refuses the wrong JSON type at body.<column>", () => {
    const p = problem(() => decodeJson(col("length"), "120"));
    expect(p.location).toBe("body.length");
    expect(p.detail).toContain("length");
    expect(() => decodeJson(col("length"), 1.5)).toThrow(ProblemError);
    expect(() => decodeJson(col("title"), 5)).toThrow(ProblemError);
    expect(() => decodeJson(col("active"), "true")).toThrow(ProblemError);
    expect(() => decodeJson(col("views"), 2 ** 60)).toThrow(ProblemError);
    expect(problem(() => decodeJson(col("rating"), "X")).allowed).toEqual(RATINGS);
  });

  it("takes null only on nullable columns", () => {
    expect(decodeJson(col("description"), null)).toBeNull();
    expect(decodeJson(col("attrs"), null)).toBeNull();
    expect(problem(() => decodeJson(col("title"), null)).detail).toContain("may not be null");
  });

  it("takes arrays as JSON arrays of the element type, without null elements", () => {
    expect(decodeJson(col("special_features"), ["Trailers", "Commentaries"])).toEqual(["Trailers", "Commentaries"]);
    expect(decodeJson(col("special_features"), [])).toEqual([]);
    expect(() => decodeJson(col("special_features"), "Trailers")).toThrow(ProblemError);
    expect(problem(() => decodeJson(col("special_features"), ["a", null])).detail).toContain("element 1");
    expect(() => decodeJson(col("special_features"), ["a", 1])).toThrow(ProblemError);
    const ints = column("ids", "integer[]", "integer", { array: true });
    expect(decodeJson(ints, [1, 2])).toEqual([1, 2]);
  });

  it("takes any JSON value on a jsonb column", () => {
    const doc = { a: [1, { b: null }], c: "x" };
    expect(decodeJson(col("attrs"), doc)).toEqual(doc);
    expect(decodeJson(col("attrs"), 3)).toBe(3);
    expect(() => decodeJson(col("attrs"), { d: new Date() })).toThrow(ProblemError);
  });
});
