import { describe, expect, it } from "vitest";
import { withKeyTiebreak } from "../../runtime/query/index.js";
import { filmActor, list, problem, problems } from "./fixture.js";

const asc = (column: string) => ({ column, descending: false });
const desc = (column: string) => ({ column, descending: true });
const FILM_SORTABLE = [
  "film_id",
  "title",
  "release_year",
  "length",
  "rental_rate",
  "rating",
  "release_date",
  "last_update",
  "views",
];

describe("sort", () => {
  it("applies DefaultSort then the key when sort is absent", () => {
    const q = list("");
    expect(q.sort).toEqual([asc("title"), asc("film_id")]);
    expect(q.sortRequested).toBe(false);
  });

  it("falls back to primary-key order without DefaultSort, for every key column", () => {
    expect(list("", filmActor).sort).toEqual([asc("actor_id"), asc("film_id")]);
  });

  it("reads the minus form and the .asc/.desc form, replacing the default", () => {
    const q = list("sort=-length,title");
    expect(q.sort).toEqual([desc("length"), asc("title"), asc("film_id")]);
    expect(q.sortRequested).toBe(true);
    expect(list("sort=length.desc,title.asc").sort).toEqual([desc("length"), asc("title"), asc("film_id")]);
  });

  it("appends the key with the direction of the last term", () => {
    expect(list("sort=-release_date").sort).toEqual([desc("release_date"), desc("film_id")]);
    expect(list("sort=title,-length").sort).toEqual([asc("title"), desc("length"), desc("film_id")]);
    expect(list("sort=-film_id,title").sort).toEqual([desc("film_id"), asc("title")]);
    expect(list("sort=-actor_id", filmActor).sort).toEqual([desc("actor_id"), desc("film_id")]);
    expect(list("sort=-last_update", filmActor).sort).toEqual([desc("last_update"), desc("actor_id"), desc("film_id")]);
    expect(withKeyTiebreak([], ["a", "b"])).toEqual([asc("a"), asc("b")]);
  });

  it("refuses unsortable, hidden, unknown and computed-unsortable columns, listing the sortable ones", () => {
    const items = problems(() => list("sort=description,secret,nope"));
    expect(items.map((i) => i.location)).toEqual(["query.sort", "query.sort", "query.sort"]);
    expect(items[0].detail).toContain("not sortable");
    expect(items[1].detail).toBe("unknown column secret");
    expect(JSON.stringify(items)).not.toContain('"secret"');
    for (const i of items) expect(i.allowed).toEqual(FILM_SORTABLE);
  });

  it("refuses a duplicate column, a malformed term and too many terms", () => {
    expect(problem(() => list("sort=title,-title")).detail).toContain("named twice");
    expect(problem(() => list("sort=-title.desc")).detail).toContain("malformed");
    expect(problem(() => list("sort=title.up")).detail).toContain("malformed");
    expect(problem(() => list("sort=")).detail).toContain("malformed");
    expect(problem(() => list("sort=title,,length")).detail).toContain("malformed");
    const p = problem(() => list("sort=title,length,views,rating"));
    expect(p.location).toBe("query.sort");
    expect(p.detail).toContain("at most 3");
  });

  it("drops spaces around terms (an unencoded + arrives as one)", () => {
    expect(list("sort=+length, -title").sort).toEqual([asc("length"), desc("title"), desc("film_id")]);
  });
});

describe("select", () => {
  it("is absent without ?select", () => {
    expect(list("").select).toBeUndefined();
  });

  it("projects visible columns, the key first when left out, duplicates once", () => {
    expect(list("select=title,length").select).toEqual(["film_id", "title", "length"]);
    expect(list("select=title,film_id,title").select).toEqual(["title", "film_id"]);
    expect(list("select=description,summary").select).toEqual(["film_id", "description", "summary"]);
    expect(list("select=last_update", filmActor).select).toEqual(["actor_id", "film_id", "last_update"]);
  });

  it("refuses hidden, unknown and uncomputed columns and relation names, listing the visible ones", () => {
    const items = problems(() => list("select=secret,nope,internal_note,language,"));
    expect(items.map((i) => i.detail)).toEqual([
      "unknown column secret",
      "unknown column nope",
      "unknown column internal_note",
      "unknown column language",
      "empty column name in select",
    ]);
    // a hidden name is never quoted back
    expect(JSON.stringify(items)).not.toContain('"secret"');
    const allowed = items[0].allowed!;
    expect(allowed).toContain("summary");
    expect(allowed).toContain("description");
    expect(allowed).not.toContain("secret");
    expect(allowed).not.toContain("internal_note");
    expect(allowed[0]).toBe("film_id");
  });
});
