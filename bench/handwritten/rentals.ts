/**
 * GET /rentals written by hand: newest first (`rental_date DESC, rental_id
 * DESC`), offset pages or keyset pages through `cursor` (the last row's
 * `rental_date` and `rental_id`, compared as a row value so the index on
 * `rental_date` serves the seek).
 */
import type { Context } from "hono";
import type pg from "pg";
import { BadRequest, encodeCursor, paging } from "./params.js";

const RENTAL_COLUMNS = "rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update";

/** GET /rentals: `per_page`, `page`/`offset` or `cursor`; every page with more rows carries `next_cursor`. */
export async function listRentals(pool: pg.Pool, c: Context): Promise<Response> {
  const q = c.req.query();
  for (const name of Object.keys(q)) {
    if (!["per_page", "page", "offset", "cursor"].includes(name)) throw new BadRequest(`unknown parameter ${name}`);
  }
  const { page, perPage, offset, after } = paging(q, 2);
  const { rows } = after
    ? await pool.query(
        `SELECT ${RENTAL_COLUMNS} FROM rental WHERE (rental_date, rental_id) < ($1::timestamptz, $2::integer)
         ORDER BY rental_date DESC, rental_id DESC LIMIT $3`,
        [after[0], after[1], perPage + 1],
      )
    : await pool.query(
        `SELECT ${RENTAL_COLUMNS} FROM rental ORDER BY rental_date DESC, rental_id DESC LIMIT $1 OFFSET $2`,
        [perPage + 1, offset],
      );
  const hasMore = rows.length > perPage;
  const items = hasMore ? rows.slice(0, perPage) : rows;
  const last = items[items.length - 1];
  return c.json({
    items,
    page,
    per_page: perPage,
    has_more: hasMore,
    ...(hasMore && { next_cursor: encodeCursor({ page: page + 1, keys: [last.rental_date, String(last.rental_id)] }) }),
  });
}
