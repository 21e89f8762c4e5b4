/**
 * Helpers of the keyset tests: follow `next_cursor` through a whole
 * ordering, and forge cursors the way a client tampering with one would.
 */
import { expect } from "vitest";
import type { TestClient } from "../support/service.js";

/** One list response body. */
export interface ListBody<T = Record<string, unknown>> {
  items: T[];
  page?: number;
  per_page: number;
  has_more: boolean;
  next_cursor?: string;
  total?: number;
}

/** What a walk saw: every item in order, and every page body. */
export interface Walk<T> {
  items: T[];
  pages: ListBody<T>[];
}

/** Appends `cursor=` to a path that may already have a query string. */
export function withCursor(path: string, cursor: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`;
}

/**
 * Lists `path`, then follows `next_cursor` until a page has none, checking
 * on every page that `has_more` and `next_cursor` agree and that the page
 * numbers run 1, 2, 3, …. `between` runs after each page that has a next
 * one (to change the table mid-walk).
 */
export async function walk<T = Record<string, unknown>>(
  client: TestClient,
  path: string,
  between?: (page: ListBody<T>, index: number) => Promise<void>,
): Promise<Walk<T>> {
  const out: Walk<T> = { items: [], pages: [] };
  let next = path;
  for (let i = 0; i < 10000; i++) {
    const r = await client.get<ListBody<T>>(next);
    expect(r.status, `${next}: ${r.text}`).toBe(200);
    const body = r.body;
    out.pages.push(body);
    out.items.push(...body.items);
    expect(body.page).toBe(i + 1);
    expect(typeof body.next_cursor === "string").toBe(body.has_more);
    if (!body.has_more) {
      expect(Object.keys(body)).not.toContain("next_cursor");
      return out;
    }
    expect(body.items).toHaveLength(body.per_page);
    if (between) await between(body, i);
    next = withCursor(path, body.next_cursor as string);
  }
  throw new Error(`${path}: the walk did not end`);
}

/** A cursor built by hand: base64url of the JSON `payload`, as decision 0500 lays it out. */
export function forge(payload: unknown): string {
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
}

/** The payload of a cursor the service issued. */
export function openCursor(cursor: string): { v: number; r: string; o: string; p: number; k: (string | null)[] } {
  return JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
}
