import { describe, expect, it } from "vitest";
import { parseCreateBody, parseUpdateBody } from "../../runtime/query/index.js";
import { film, problem, problems, RATINGS } from "./fixture.js";

const CREATE_WRITABLE = [
  "title",
  "description",
  "release_year",
  "length",
  "rental_rate",
  "rating",
  "special_features",
  "tags",
  "attrs",
  "release_date",
  "created_at",
  "shot_at",
  "language_id",
  "external_id",
  "active",
  "views",
  "score",
  "starts",
  "poster",
];
const UPDATE_WRITABLE = CREATE_WRITABLE.filter((f) => f !== "created_at");
const minimal = { title: "ACADEMY DINOSAUR", language_id: 1 };

describe("create body", () => {
  it("decodes each field for its column", () => {
    expect(
      parseCreateBody(film, {
        ...minimal,
        description: null,
        rental_rate: "4.99",
        rating: "PG-13",
        special_features: ["Trailers"],
        attrs: { a: 1 },
        release_date: "2006-02-15",
        created_at: "2006-02-15T10:00:00Z",
        views: "12",
      }),
    ).toEqual({
      title: "ACADEMY DINOSAUR",
      language_id: 1,
      description: null,
      rental_rate: "4.99",
      rating: "PG-13",
      special_features: ["Trailers"],
      attrs: { a: 1 },
      release_date: "2006-02-15",
      created_at: "2006-02-15T10:00:00Z",
      views: 12n,
    });
  });

  it("requires the fields that are not nullable and have no default", () => {
    const items = problems(() => parseCreateBody(film, {}));
    expect(items.map((i) => i.location)).toEqual(["body.title", "body.language_id"]);
    expect(items[0].detail).toContain("required");
  });

  it("refuses unknown, hidden, read-only and computed fields, listing the writable ones", () => {
    const items = problems(() =>
      parseCreateBody(film, {
        ...minimal,
        nope: 1,
        secret: "s",
        film_id: 5,
        last_update: "2006-02-15T00:00:00Z",
        summary: "x",
        internal_note: "y",
      }),
    );
    expect(items.map((i) => i.location)).toEqual([
      "body.nope",
      "body.secret",
      "body.film_id",
      "body.last_update",
      "body.summary",
      "body.internal_note",
    ]);
    expect(items[1].detail).toBe("unknown field secret");
    expect(items[2].detail).toContain("read-only");
    expect(items[4].detail).toContain("computed");
    for (const i of items) expect(i.allowed).toEqual(CREATE_WRITABLE);
  });

  it("refuses wrong JSON types and null on a non-nullable column, at body.<field>", () => {
    const items = problems(() =>
      parseCreateBody(film, {
        title: null,
        language_id: "1",
        length: 1.5,
        active: "yes",
        special_features: "Trailers",
        rating: "X",
      }),
    );
    expect(items.map((i) => i.location)).toEqual([
      "body.title",
      "body.language_id",
      "body.length",
      "body.active",
      "body.special_features",
      "body.rating",
    ]);
    expect(items[0].detail).toContain("may not be null");
    expect(items[5].allowed).toEqual(RATINGS);
  });

  it("refuses a body that is not a JSON object at body", () => {
    for (const body of [null, [], "x", 3]) {
      const p = problem(() => parseCreateBody(film, body));
      expect(p.location).toBe("body");
    }
  });
});

describe("update body", () => {
  it("returns exactly the fields carried", () => {
    expect(parseUpdateBody(film, { length: 90, description: null })).toEqual({
      fields: { length: 90, description: null },
    });
    expect(parseUpdateBody(film, { title: "x" }).fields).not.toHaveProperty("language_id");
  });

  it("refuses an empty change set at body, listing the writable fields", () => {
    const p = problem(() => parseUpdateBody(film, {}));
    expect(p.location).toBe("body");
    expect(p.detail).toContain("empty change set");
    expect(p.allowed).toEqual(UPDATE_WRITABLE);
  });

  it("refuses immutable and read-only fields", () => {
    const items = problems(() => parseUpdateBody(film, { created_at: "2006-02-15T00:00:00Z", film_id: 3, title: 5 }));
    expect(items.map((i) => i.location)).toEqual(["body.created_at", "body.film_id", "body.title"]);
    expect(items[0].detail).toContain("immutable");
    expect(items[0].allowed).toEqual(UPDATE_WRITABLE);
  });

  it("refuses a body that is not a JSON object", () => {
    expect(problem(() => parseUpdateBody(film, [{ title: "x" }])).location).toBe("body");
  });
});
