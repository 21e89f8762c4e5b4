/**
 * GET /films and GET /films/:id written by hand: SQL text with `$n`
 * parameters, rows mapped by node-postgres, JSON built with JSON.stringify.
 * Expansions (`language`, `cast`) are fetched in two batched follow-up
 * queries (`= ANY($1)`), the usual way to avoid one query per row.
 */
import type { Context } from "hono";
import type pg from "pg";
import { BadRequest, encodeCursor, opValue, paging, sortParam, type SortTerm } from "./params.js";

const FILM_COLUMNS =
  "film_id, title, description, release_year, language_id, original_language_id, rental_duration, " +
  "rental_rate, length, replacement_cost, rating, last_update, special_features";

const SORTABLE = [
  "film_id",
  "title",
  "release_year",
  "rental_duration",
  "rental_rate",
  "length",
  "replacement_cost",
  "rating",
  "last_update",
];

type Row = Record<string, unknown>;

/** Builds `WHERE` conditions for the filters this endpoint offers. */
function filmFilters(q: Record<string, string>, values: unknown[]): string[] {
  const where: string[] = [];
  const bind = (v: unknown): string => {
    values.push(v);
    return `$${values.length}`;
  };
  if (q.rating !== undefined) {
    const [op, v] = opValue(q.rating);
    if (op === "eq") where.push(`rating = ${bind(v)}`);
    else if (op === "in") where.push(`rating = ANY(${bind(v.split(","))}::mpaa_rating[])`);
    else throw new BadRequest("rating takes eq or in");
  }
  if (q.length !== undefined) {
    const [op, v] = opValue(q.length);
    if (op === "between") {
      const [lo, hi] = v.split(",");
      where.push(`length BETWEEN ${bind(Number(lo))} AND ${bind(Number(hi))}`);
    } else if (op === "eq") where.push(`length = ${bind(Number(v))}`);
    else if (op === "gte") where.push(`length >= ${bind(Number(v))}`);
    else if (op === "lte") where.push(`length <= ${bind(Number(v))}`);
    else throw new BadRequest("length takes eq, gte, lte or between");
  }
  if (q.language_id !== undefined) where.push(`language_id = ${bind(Number(opValue(q.language_id)[1]))}`);
  return where;
}

/** Columns a cursor can seek on: NOT NULL, so a row comparison orders them exactly. */
const NOT_NULL = ["film_id", "title", "rental_duration", "rental_rate", "replacement_cost", "last_update"];

/** The sort terms with `film_id` appended (last term's direction) so the order is total. */
function withTiebreak(sort: SortTerm[]): SortTerm[] {
  if (sort.some((t) => t.column === "film_id")) return sort;
  return [...sort, { column: "film_id", descending: sort[sort.length - 1]?.descending ?? false }];
}

function orderBy(terms: SortTerm[]): string {
  return terms
    .map((t) => `${t.column} ${t.descending ? "DESC" : "ASC"}${t.column === "length" ? " NULLS LAST" : ""}`)
    .join(", ");
}

function seekable(terms: SortTerm[]): boolean {
  return terms.every((t) => NOT_NULL.includes(t.column) && t.descending === terms[0].descending);
}

/** `(title, film_id) > ($3, $4)`: rows after the cursor's key values; only for one direction over NOT NULL columns. */
function seek(terms: SortTerm[], after: string[], values: unknown[]): string {
  if (!seekable(terms)) {
    throw new BadRequest("cursor paging needs one sort direction over columns without nulls");
  }
  const placeholders = after.map((v) => {
    values.push(v);
    return `$${values.length}`;
  });
  return `(${terms.map((t) => t.column).join(", ")}) ${terms[0].descending ? "<" : ">"} (${placeholders.join(", ")})`;
}

/** Adds `language` (the language row) and `cast` (`{items, has_more}`, 20 actors at most) to each film. */
async function expand(pool: pg.Pool, films: Row[], names: string[]): Promise<void> {
  const ids = films.map((f) => f.film_id);
  const [languages, cast] = await Promise.all([
    names.includes("language")
      ? pool.query("SELECT language_id, name, last_update FROM language WHERE language_id = ANY($1)", [
          [...new Set(films.map((f) => f.language_id))],
        ])
      : undefined,
    names.includes("cast")
      ? pool.query(
          `SELECT actor_id, film_id, last_update FROM (
             SELECT actor_id, film_id, last_update, row_number() OVER (PARTITION BY film_id ORDER BY actor_id) AS n
             FROM film_actor WHERE film_id = ANY($1)) AS fa
           WHERE n <= 21 ORDER BY film_id, actor_id`,
          [ids],
        )
      : undefined,
  ]);
  const byLanguage = new Map(languages?.rows.map((l) => [l.language_id, l]));
  const byFilm = new Map<unknown, Row[]>();
  for (const a of cast?.rows ?? []) {
    const list = byFilm.get(a.film_id) ?? [];
    list.push(a);
    byFilm.set(a.film_id, list);
  }
  for (const name of names) {
    for (const f of films) {
      if (name === "language") f.language = byLanguage.get(f.language_id) ?? null;
      else {
        const actors = byFilm.get(f.film_id) ?? [];
        f.cast = { items: actors.slice(0, 20), has_more: actors.length > 20 };
      }
    }
  }
}

/** GET /films: filters, sort, page, expand. */
export async function listFilms(pool: pg.Pool, c: Context): Promise<Response> {
  const q = c.req.query();
  const values: unknown[] = [];
  const where = filmFilters(q, values);
  const terms = withTiebreak(sortParam(q.sort, SORTABLE, [{ column: "title", descending: false }]));
  const { page, perPage, offset, after } = paging(q, terms.length);
  const names = q.expand ? q.expand.split(",") : [];
  if (names.some((n) => n !== "language" && n !== "cast")) throw new BadRequest("expand takes language and cast");
  if (after) where.push(seek(terms, after, values));
  values.push(perPage + 1, offset);
  const sql =
    `SELECT ${FILM_COLUMNS} FROM film` +
    (where.length ? ` WHERE ${where.join(" AND ")}` : "") +
    ` ORDER BY ${orderBy(terms)} LIMIT $${values.length - 1} OFFSET $${values.length}`;
  const { rows } = await pool.query(sql, values);
  const hasMore = rows.length > perPage;
  const items = hasMore ? rows.slice(0, perPage) : rows;
  const last = items[items.length - 1];
  const body: Row = { items, page, per_page: perPage, has_more: hasMore };
  if (hasMore && seekable(terms))
    body.next_cursor = encodeCursor({ page: page + 1, keys: terms.map((t) => String(last[t.column])) });
  if (names.length) await expand(pool, items, names);
  return c.json(body);
}

/** GET /films/:id: one film, 404 when absent. */
export async function readFilm(pool: pg.Pool, c: Context): Promise<Response> {
  const id = c.req.param("id") ?? "";
  if (!/^\d+$/.test(id)) throw new BadRequest("id must be an integer");
  const { rows } = await pool.query(`SELECT ${FILM_COLUMNS} FROM film WHERE film_id = $1`, [Number(id)]);
  if (rows.length === 0) return c.json({ error: "not found" }, 404);
  return c.json(rows[0]);
}
