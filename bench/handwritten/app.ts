/**
 * The hand-written counterpart of the resc Pagila service, for the
 * benchmark: Hono routes over a node-postgres pool, serving the endpoints
 * the scenarios request with the same JSON as resc (docs/http.md forms),
 * and the two writes (writes.ts).
 */
import { Hono } from "hono";
import type pg from "pg";
import { listFilms, readFilm } from "./films.js";
import { BadRequest } from "./params.js";
import { listRentals } from "./rentals.js";
import { createActors, Refused, returnRental } from "./writes.js";

/** Builds the app over `pool`; a {@link BadRequest} is a 400, anything else a 500. */
export function createHandwrittenApp(pool: pg.Pool): Hono {
  const app = new Hono();
  app.get("/films", (c) => listFilms(pool, c));
  app.get("/films/:id", (c) => readFilm(pool, c));
  app.get("/rentals", (c) => listRentals(pool, c));
  app.post("/actors", (c) => createActors(pool, c));
  app.post("/rentals/:id/return", (c) => returnRental(pool, c));
  app.onError((e, c) => {
    if (e instanceof BadRequest) return c.json({ error: e.message }, 400);
    if (e instanceof Refused) return c.json({ error: e.message }, e.status);
    console.error(e);
    return c.json({ error: "internal error" }, 500);
  });
  return app;
}
