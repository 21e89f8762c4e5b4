/**
 * The hand-written counterpart of the resc Pagila service, for the
 * benchmark: Hono routes over a node-postgres pool, serving the endpoints
 * the scenarios request with the same JSON as resc (docs/http.md forms).
 */
import { Hono } from "hono";
import type pg from "pg";
import { listFilms, readFilm } from "./films.js";
import { BadRequest } from "./params.js";
import { listRentals } from "./rentals.js";

/** Builds the app over `pool`; a {@link BadRequest} is a 400, anything else a 500. */
export function createHandwrittenApp(pool: pg.Pool): Hono {
  const app = new Hono();
  app.get("/films", (c) => listFilms(pool, c));
  app.get("/films/:id", (c) => readFilm(pool, c));
  app.get("/rentals", (c) => listRentals(pool, c));
  app.onError((e, c) => {
    if (e instanceof BadRequest) return c.json({ error: e.message }, 400);
    console.error(e);
    return c.json({ error: "internal error" }, 500);
  });
  return app;
}
