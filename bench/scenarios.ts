/**
 * The request shapes the benchmark measures (bench/RESULTS.md): four reads,
 * and two writes (a bulk create of 1,000 rows, a declared action); and the
 * check that both servers answer each alike before anything is measured.
 */
import { isDeepStrictEqual } from "node:util";
import type { RowPaths } from "./load.js";

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

/** One measured write (bench/RESULTS.md, "Writes"). */
export interface WriteScenario {
  name: string;
  /** The request as the report shows it. */
  shown: string;
  body: string;
  /**
   * Where one server's requests go: the same path every time, or (an
   * action on one row) the rows prepared for that server, each once.
   */
  path(label: string): string | RowPaths;
}

/** 1,000 actors in one POST, the most one request may carry (max_batch). */
export const BULK_ROWS = 1000;

/**
 * The writes, after the reads in report order. `openRentals` gives each
 * server's first and last id of the rentals prepared for it, not returned
 * yet, so that every `return` acts on a fresh row.
 */
export function writeScenarios(openRentals: Record<string, [number, number]>): WriteScenario[] {
  const actors = Array.from({ length: BULK_ROWS }, (_, i) => ({ first_name: `BENCH${i}`, last_name: "BULK" }));
  return [
    {
      name: "5 bulk create, 1,000 actors",
      shown: "POST /actors with a JSON array of 1,000 rows",
      body: JSON.stringify(actors),
      path: () => "/actors",
    },
    {
      name: "6 action: POST /rentals/{id}/return",
      shown: 'POST /rentals/{id}/return {"staff_id":1}, a fresh rental each time',
      body: JSON.stringify({ staff_id: 1 }),
      path(label) {
        const range = openRentals[label];
        if (!range) throw new Error(`no rentals prepared for ${label}`);
        return { before: "/rentals/", after: "/return", next: range[0], last: range[1] };
      },
    },
  ];
}

/**
 * What two servers' answers to one write must share: the status, and the
 * members of the row (of each row, for an array) and their number. Values
 * differ (keys, times), so they are not compared.
 */
export function writeShape(status: number, body: unknown): string {
  const rows = Array.isArray(body) ? body : [body];
  const keys = rows.map((r) =>
    Object.keys((r ?? {}) as object)
      .sort()
      .join(","),
  );
  return `${status} ${rows.length} × {${[...new Set(keys)].join(" | ")}}`;
}
