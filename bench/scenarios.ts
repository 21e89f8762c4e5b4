/**
 * The four request shapes the benchmark measures (bench/RESULTS.md), and the
 * check that both servers answer each with the same JSON before anything
 * is measured.
 */
import { isDeepStrictEqual } from "node:util";

/** One measured request shape. */
export interface Scenario {
  /** Short name used in the report. */
  name: string;
  /**
   * The path (with query) to load on the server at `base`
   * (`http://127.0.0.1:PORT`). Keyset scenarios first ask the server for a
   * cursor, since each server's cursor is its own opaque text.
   */
  path(base: string): Promise<string>;
}

/** The body of GET `base + path` as parsed JSON; throws on a non-200 answer. */
export async function getJson(base: string, path: string): Promise<unknown> {
  const res = await fetch(base + path);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/** Offset of the page whose `next_cursor` starts the keyset scenario: deep in the 16,044 rentals. */
export const DEEP_RENTAL_OFFSET = 12000;

/** The scenarios, in report order. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: "1 filtered sorted films page",
    path: async () => "/films?rating=eq.PG&length=between.60,120&sort=title",
  },
  {
    name: "2 films page, expand=language,cast",
    path: async () => "/films?per_page=25&expand=language,cast",
  },
  {
    name: "3 one film by id",
    path: async () => "/films/133",
  },
  {
    name: "4 keyset page deep in rentals",
    async path(base) {
      const page = (await getJson(base, `/rentals?offset=${DEEP_RENTAL_OFFSET}`)) as { next_cursor?: unknown };
      if (typeof page.next_cursor !== "string")
        throw new Error(`${base}: no next_cursor on /rentals?offset=${DEEP_RENTAL_OFFSET}`);
      return `/rentals?cursor=${encodeURIComponent(page.next_cursor)}`;
    },
  },
];

/**
 * Whether two list or item bodies carry the same rows and values.
 * `next_cursor` is opaque and each server encodes its own, so only its
 * presence is compared; everything else must be deeply equal.
 */
export function sameAnswer(a: unknown, b: unknown): boolean {
  const strip = (x: unknown): unknown => {
    if (x === null || typeof x !== "object" || Array.isArray(x) || !("next_cursor" in x)) return x;
    const { next_cursor, ...rest } = x as Record<string, unknown>;
    return { ...rest, next_cursor: typeof next_cursor === "string" };
  };
  return isDeepStrictEqual(strip(a), strip(b));
}

/**
 * The first difference between two JSON values as a path and both sides
 * (`items[3].last_update: "…" vs "…"`), for the report when
 * {@link sameAnswer} fails; undefined when equal.
 */
export function firstDifference(a: unknown, b: unknown, at = ""): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (
    a !== null &&
    b !== null &&
    typeof a === "object" &&
    typeof b === "object" &&
    Array.isArray(a) === Array.isArray(b)
  ) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
      const d = firstDifference(ra[k], rb[k], Array.isArray(a) ? `${at}[${k}]` : at ? `${at}.${k}` : k);
      if (d !== undefined) return d;
    }
  }
  return `${at || "(body)"}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
}
