/**
 * runtime/http/query-string.ts reads a request's query parameters without
 * building a URL object (docs/decisions/1339-lighter-request-path.md); it
 * must give exactly what `URL.searchParams` gives.
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { queryParams } from "../../runtime/http/query-string.js";

const URLS = [
  "http://h/films",
  "http://h/films?",
  "http://h/films?rating=eq.PG&length=between.60,120&sort=title",
  "http://h/films?title=like.%25Dino%25&title=neq.A%26B&x=%2B1+2",
  "http://h/films?filter=%7B%22or%22%3A%5B%5D%7D&empty=&flag",
  "http://h/a?b=c#fragment?d=e",
  "http://h/a#only-fragment",
  "http://h/%C3%A9t%C3%A9?n=%C3%A9t%C3%A9&n=2",
];

describe("queryParams", () => {
  it.each(URLS)("reads %s as URL.searchParams does", async (url) => {
    const app = new Hono();
    app.get("*", (c) => c.json([...queryParams(c)]));
    const got = await (await app.request(url)).json();
    expect(got).toEqual([...new URL(url).searchParams]);
  });
});
