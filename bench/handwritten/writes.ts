/**
 * The two writes the benchmark measures, written by hand with the same
 * statements resc sends (bench/RESULTS.md, "Writes"):
 *
 * - POST /actors with a JSON array: every row checked, then one multi-row
 *   `INSERT … VALUES (…), (…) RETURNING` in a transaction; 201 with the rows.
 * - POST /rentals/:id/return: in a transaction, the rental read and locked
 *   (`FOR UPDATE`), 409 when it was returned already, the staff member
 *   checked, `now()` read, the row updated; 200 with the row. This is what
 *   resc runs around fixtures/pagila/hooks.ts, less the read of the row
 *   after the update that resc answers with.
 */
import type { Context } from "hono";
import type pg from "pg";
import { BadRequest } from "./params.js";

const ACTOR_COLUMNS = "actor_id, first_name, last_name, last_update";
const RENTAL_COLUMNS = "rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update";
const MAX_ROWS = 1000;

/** A refusal with its own status, answered with `{"error": message}`. */
export class Refused extends Error {
  constructor(
    readonly status: 404 | 409 | 422,
    message: string,
  ) {
    super(message);
  }
}

async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const out = await fn(client);
    await client.query("COMMIT");
    return out;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/** POST /actors: one object or an array of at most 1,000, each `{first_name, last_name}` and nothing else. */
export async function createActors(pool: pg.Pool, c: Context): Promise<Response> {
  const body: unknown = await c.req.json().catch(() => {
    throw new BadRequest("the body is not JSON");
  });
  const rows = Array.isArray(body) ? body : [body];
  if (rows.length === 0 || rows.length > MAX_ROWS) throw new BadRequest(`between 1 and ${MAX_ROWS} rows`);
  const values: string[] = [];
  const tuples: string[] = [];
  for (const [i, row] of rows.entries()) {
    const r = row as Record<string, unknown>;
    if (typeof r !== "object" || r === null || Object.keys(r).some((k) => k !== "first_name" && k !== "last_name"))
      throw new BadRequest(`row ${i}: only first_name and last_name`);
    if (typeof r.first_name !== "string" || typeof r.last_name !== "string")
      throw new BadRequest(`row ${i}: first_name and last_name are required text`);
    values.push(r.first_name, r.last_name);
    tuples.push(`($${values.length - 1}::text, $${values.length}::text)`);
  }
  const stored = await inTransaction(pool, (client) =>
    client.query(
      `INSERT INTO actor (first_name, last_name) VALUES ${tuples.join(", ")} RETURNING ${ACTOR_COLUMNS}`,
      values,
    ),
  );
  return c.json(Array.isArray(body) ? stored.rows : stored.rows[0], 201);
}

/** POST /rentals/:id/return with `{staff_id}`: the rental returned now; 404, 409 or 422 otherwise. */
export async function returnRental(pool: pg.Pool, c: Context): Promise<Response> {
  const id = c.req.param("id") ?? "";
  if (!/^\d+$/.test(id)) throw new BadRequest("the id is an integer");
  const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
  if (!Number.isInteger(body.staff_id) || Object.keys(body).length !== 1) throw new BadRequest("staff_id, an integer");
  const row = await inTransaction(pool, async (client) => {
    const locked = await client.query(`SELECT ${RENTAL_COLUMNS} FROM rental WHERE rental_id = $1 FOR UPDATE`, [id]);
    if (locked.rows.length === 0) throw new Refused(404, "no such rental");
    if (locked.rows[0].return_date !== null) throw new Refused(409, "already returned");
    const staff = await client.query("SELECT active::text AS active FROM staff WHERE staff_id = $1", [body.staff_id]);
    if (staff.rows[0]?.active !== "true") throw new Refused(422, "no active staff member has this id");
    const now = await client.query("SELECT now()::text AS now");
    const updated = await client.query(
      `UPDATE rental SET return_date = $2::timestamptz WHERE rental_id = $1 RETURNING ${RENTAL_COLUMNS}`,
      [id, now.rows[0].now],
    );
    return updated.rows[0] as Record<string, unknown>;
  });
  return c.json(row);
}
