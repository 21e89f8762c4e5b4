import { describe, expect, it } from "vitest";
import { parseKey, parseReadQuery } from "../../runtime/query/index.js";
import { device, film, filmActor, FILM_FILTERABLE, language, list, problem, problems, service } from "./fixture.js";

describe("offset paging", () => {
  it("defaults to page 1 of DefaultPageSize rows", () => {
    expect(list("")).toMatchObject({ page: 1, perPage: 20, offset: 0, count: false });
  });

  it("computes the offset from page and per_page", () => {
    expect(list("page=3&per_page=10")).toMatchObject({ page: 3, perPage: 10, offset: 20 });
    expect(list("page=2")).toMatchObject({ page: 2, perPage: 20, offset: 20 });
  });

  it("reduces per_page above MaxPageSize to MaxPageSize", () => {
    expect(list("per_page=1000&page=2")).toMatchObject({ perPage: 100, offset: 100 });
  });

  it("takes an offset as given", () => {
    expect(list("offset=15&per_page=5")).toMatchObject({ page: 1, perPage: 5, offset: 15 });
    expect(list("offset=0").offset).toBe(0);
    expect(list("offset=1000").offset).toBe(1000);
  });

  it("refuses non-integers and values below the minimum", () => {
    const items = problems(() => list("page=0&per_page=1.5"));
    expect(items.map((i) => i.location)).toEqual(["query.page", "query.per_page"]);
    expect(problem(() => list("offset=-1")).location).toBe("query.offset");
    expect(problem(() => list("page=abc")).location).toBe("query.page");
    expect(problem(() => list("per_page=0")).location).toBe("query.per_page");
  });

  it("refuses page with offset", () => {
    expect(problem(() => list("page=2&offset=10")).detail).toContain("page and offset");
  });

  it("refuses an offset beyond MaxOffset, pointing at cursor", () => {
    const p = problem(() => list("offset=1001"));
    expect(p.location).toBe("query.offset");
    expect(p.detail).toContain("cursor");
    const q = problem(() => list("page=52&per_page=20"));
    expect(q.location).toBe("query.page");
    expect(q.detail).toContain("cursor");
    expect(list("page=51&per_page=20").offset).toBe(1000);
    expect(problem(() => list("page=99999999999999999999")).detail).toContain("cursor");
  });

  it("keeps the cursor raw and refuses it with page or offset, naming which to drop", () => {
    expect(list("cursor=abc.def").cursor).toBe("abc.def");
    const items = problems(() => list("cursor=abc&page=2&offset=3"));
    expect(items.map((i) => i.location)).toEqual(["query.page", "query.offset"]);
    expect(items[0].detail).toContain("drop page");
    expect(items[1].detail).toContain("drop offset");
    expect(problem(() => list("cursor=")).location).toBe("query.cursor");
  });
});

describe("count, search, repeated and unknown parameters", () => {
  it("takes count=exact only", () => {
    expect(list("count=exact").count).toBe(true);
    const p = problem(() => list("count=planned"));
    expect(p).toMatchObject({ location: "query.count", allowed: ["exact"] });
  });

  it("keeps search text as given and ignores an empty search", () => {
    expect(list("search=50%_off").search).toBe("50%_off");
    expect(list("search=").search).toBeUndefined();
    expect(problem(() => list(`search=${"x".repeat(257)}`)).location).toBe("query.search");
  });

  it("refuses search on a table without a searchable column as an unknown parameter", () => {
    const p = problem(() => list("search=x", filmActor));
    expect(p.location).toBe("query.search");
    expect(p.detail).toContain("unknown parameter");
    expect(p.allowed).toEqual(["actor_id", "film_id"]);
  });

  it("refuses a single-valued parameter given twice", () => {
    const items = problems(() => list("search=a&search=b&page=1&page=2"));
    expect(items.map((i) => i.location)).toEqual(["query.search", "query.page"]);
  });

  it("joins repeated sort and select in request order (docs/decisions/0311-repeated-list-parameters.md)", () => {
    const q = list("sort=-length&sort=title&select=title&select=length");
    expect(q.sortRequested).toEqual(list("sort=-length,title").sortRequested);
    expect(q.sort).toEqual(list("sort=-length,title").sort);
    expect(q.select).toEqual(list("select=title,length").select);
    // The joined list keeps its rules: a column sorted twice is still refused.
    expect(problems(() => list("sort=title&sort=-title")).map((i) => i.location)).toEqual(["query.sort"]);
  });
});

describe("expand", () => {
  it("takes expandable relation names, deduplicated, in request order", () => {
    expect(list("expand=cast,language").expand).toEqual(["cast", "language"]);
    expect(list("expand=language&expand=cast,language").expand).toEqual(["language", "cast"]);
    expect(list("").expand).toEqual([]);
  });

  it("refuses column names and non-expandable relations, listing the expandable ones", () => {
    const items = problems(() => list("expand=language_id,original_language"));
    expect(items.map((i) => i.value)).toEqual(["language_id", "original_language"]);
    for (const i of items) expect(i).toMatchObject({ location: "query.expand", allowed: ["language", "cast"] });
  });

  it("treats expand as an unknown parameter on a table without expandable relations", () => {
    const p = problem(() => list("expand=film", filmActor));
    expect(p.location).toBe("query.expand");
    expect(p.detail).toContain("unknown parameter");
  });

  it("is, with select, a parameter of a read, with the same rejection", () => {
    expect(parseReadQuery(service, film, new URLSearchParams("expand=language,language"))).toEqual({
      expand: ["language"],
    });
    expect(parseReadQuery(service, film, new URLSearchParams(""))).toEqual({ expand: [] });
    const listRefusal = problem(() => list("expand=original_language"));
    const readRefusal = problem(() => parseReadQuery(service, film, new URLSearchParams("expand=original_language")));
    expect(readRefusal).toEqual(listRefusal);
    const items = problems(() => parseReadQuery(service, film, new URLSearchParams("sort=title&title=x")));
    expect(items.map((i) => i.location)).toEqual(["query.sort", "query.title"]);
    expect(items[0]).toMatchObject({ allowed: ["expand", "select"] });
    expect(items[0].detail).toContain("unknown parameter");
    const none = problem(() => parseReadQuery(service, language, new URLSearchParams("expand=films")));
    expect(none.location).toBe("query.expand");
    expect(none.detail).toContain("unknown parameter");
  });

  it("takes every select a list takes, and refuses what a list refuses, alike", () => {
    const read = (qs: string) => parseReadQuery(service, film, new URLSearchParams(qs));
    for (const qs of [
      "select=title",
      "select=title,length&select=rating",
      "select=title,title",
      "select=title&expand=language",
    ]) {
      const listed = list(qs);
      expect(read(qs), qs).toEqual({
        expand: listed.expand,
        select: listed.select,
      });
    }
    for (const qs of ["select=nope", "select=", "select=title,,length"]) {
      expect(
        problems(() => read(qs)),
        qs,
      ).toEqual(problems(() => list(qs)));
    }
  });
});

describe("parseKey", () => {
  it("decodes the single-column key with the column's codec", () => {
    expect(parseKey(film, "42")).toBe(42);
    expect(parseKey(device, "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")).toBe("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  });

  it("refuses a malformed id with 400 at path.id, without naming a hidden key column", () => {
    const p = problem(() => parseKey(film, "abc"));
    expect(p).toMatchObject({ location: "path.id", value: "abc" });
    const hidden = problem(() => parseKey(device, "nope"));
    expect(hidden.location).toBe("path.id");
    expect(hidden.detail).not.toContain("device_key");
    expect(hidden.detail).toContain("UUID");
    expect(problem(() => parseKey(film, "9".repeat(300))).location).toBe("path.id");
  });

  it("says a resource has no change feed when its events path reaches the item route", () => {
    expect(problem(() => parseKey(film, "events")).detail).toMatch(/this resource has no change feed/);
    expect(problem(() => parseKey(film, "event")).detail).not.toMatch(/change feed/);
  });

  it("decodes a composite key's segments in key order, each problem at its own path parameter (decision 1376)", () => {
    expect(parseKey(filmActor, ["3", "42"])).toEqual([3, 42]);
    const bad = problems(() => parseKey(filmActor, ["x", "events"]));
    expect(bad.map((p) => [p.location, p.value])).toEqual([
      ["path.actor_id", "x"],
      ["path.film_id", "events"],
    ]);
    // The change-feed hint belongs to a single key's one segment.
    expect(bad[1].detail).not.toMatch(/change feed/);
  });

  it("is a programming error when the segments do not match the key", () => {
    expect(() => parseKey(filmActor, "1")).toThrow(/not addressed by 1 key segment/);
    expect(() => parseKey(film, ["1", "2"])).toThrow(/not addressed by 2 key segment/);
  });
});

describe("filterable list of unknown parameters", () => {
  it("lists film's filterable columns in declaration order, no hidden or uncomputed one", () => {
    const p = problem(() => list("x=1"));
    expect(p.allowed).toEqual(FILM_FILTERABLE);
  });
});
