/**
 * The fuzz oracle itself: a property suite whose checker flags nothing
 * proves nothing, so each kind of violation is shown to be caught, and
 * each legitimate echo of the request is shown to pass.
 */
import { describe, expect, it } from "vitest";
import type { RawAnswer, RawRequest } from "./support/http.js";
import { percentEncode } from "./support/arbitraries.js";
import { requestText, violations, type Secrets } from "./support/oracle.js";

const secrets: Secrets = {
  constraintNames: ["film_pkey", "idx_title"],
  hiddenNames: ["password", "picture"],
  hiddenValues: ["8cb2237d0679ca88db6464eac60da96345513964"],
};

function answer(
  status: number,
  body: unknown,
  contentType = status >= 400 ? "application/problem+json" : "application/json",
): RawAnswer {
  const text = JSON.stringify(body);
  return { status, headers: new Headers({ "content-type": contentType }), text, json: body };
}

const problem = (status: number, errors: unknown[] = [], extra: Record<string, unknown> = {}) => ({
  type: "/problems/invalid-query",
  title: "Bad Request",
  status,
  detail: "something is wrong",
  errors,
  ...extra,
});

const get = (path: string): RawRequest => ({ method: "GET", path });
const check = (req: RawRequest, ans: RawAnswer) =>
  violations(req, ans, secrets, { scanSuccess: true, page: { maxPageSize: 200 } });

describe("fuzz oracle", () => {
  it("passes a well-formed refusal and a well-formed page", () => {
    expect(
      check(
        get("/films?x=1"),
        answer(400, problem(400, [{ location: "query.x", detail: "unknown", allowed: ["title"] }])),
      ),
    ).toEqual([]);
    expect(
      check(get("/films"), answer(200, { items: [{ film_id: 1 }], page: 1, per_page: 25, has_more: false })),
    ).toEqual([]);
  });

  it("flags a 5xx, a wrong content type, a status mismatch, missing and extra members", () => {
    expect(check(get("/films"), answer(500, problem(500)))).toContain("status 500");
    expect(check(get("/films"), answer(400, problem(400), "application/json")).join()).toContain(
      "not application/problem+json",
    );
    expect(check(get("/films"), answer(400, problem(404))).join()).toContain("differs from HTTP 400");
    expect(check(get("/films"), answer(400, { title: "x", status: 400 })).join()).toContain("type");
    expect(check(get("/films"), answer(400, problem(400, [], { stack: "Error" }))).join()).toContain(
      "unexpected member stack",
    );
    expect(check(get("/films"), answer(400, problem(400, [{ location: "sql", detail: "x" }]))).join()).toContain(
      "location",
    );
    expect(
      check(get("/films"), answer(400, problem(400, [{ location: "body", detail: "x", allowed: [1] }]))).join(),
    ).toContain("allowed");
  });

  it("flags SQL text, driver messages, constraint names and hidden names unless the request said them", () => {
    const leak = (detail: string) => answer(400, problem(400, [{ location: "query.title", detail }]));
    expect(check(get("/films"), leak('SELECT "j" FROM "film"')).join()).toContain("SQL");
    expect(check(get("/films"), leak("bind $1 failed")).join()).toContain("SQL");
    expect(check(get("/films"), leak("invalid input syntax for type integer")).join()).toContain("driver");
    expect(check(get("/films"), leak("duplicate on film_pkey")).join()).toContain("film_pkey");
    expect(check(get("/staff"), leak("try password")).join()).toContain("hidden column name password");
    expect(
      check(
        get("/staff"),
        answer(200, { items: [{ staff_id: 1, picture: null }], per_page: 25, has_more: false }),
      ).join(),
    ).toContain("served as a member");
    expect(
      check(
        get("/staff"),
        answer(400, problem(400, [{ location: "query.x", detail: "no", allowed: ["password"] }])),
      ).join(),
    ).toContain("allowed");
    expect(
      check(
        get("/staff"),
        answer(200, { items: [{ note: "8cb2237d0679ca88db6464eac60da96345513964" }], per_page: 25, has_more: false }),
      ).join(),
    ).toContain("hidden column's value");
    // Quoting back what the client sent is no leak.
    expect(
      check(
        get("/films?title=" + encodeURIComponent('SELECT "x" FROM "y" $1')),
        leak('value SELECT "x" FROM "y" $1 is odd'),
      ),
    ).toEqual([]);
    expect(check(get("/staff?password=eq.x"), leak("unknown parameter password"))).toEqual([]);
  });

  it("flags a page larger than its per_page or its ceiling", () => {
    const items = Array.from({ length: 3 }, (_, i) => ({ film_id: i }));
    expect(check(get("/films"), answer(200, { items, per_page: 2, has_more: true })).join()).toContain(
      "3 items on a page of 2",
    );
    expect(check(get("/films"), answer(200, { items, per_page: 500, has_more: false })).join()).toContain(
      "exceeds MaxPageSize",
    );
    expect(check(get("/films"), answer(200, { items, per_page: 0, has_more: false })).join()).toContain(
      "positive integer",
    );
  });

  it("reads the request in every form the server may quote it", () => {
    expect(requestText(get("/films?title=a%20b+c"))).toContain("a b c");
    expect(requestText({ method: "POST", path: "/actors", body: '{"first_name":"\\u0041x"}' })).toContain("Ax");
    expect(percentEncode("a\uD800😀")).toBe("a%ED%A0%80%F0%9F%98%80");
  });
});
