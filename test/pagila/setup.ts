/**
 * A fresh database holding the shipped Pagila, plus exactly what the
 * fixture's capabilities need (a GIN index for the filterable
 * `film.special_features`, and the foreign key the `manager` relation of a
 * store declares, which the dump leaves out; pagila-mapping.md), served
 * in-process from `fixtures/pagila/pagila.resource` with the hooks of
 * `fixtures/pagila/hooks.ts` (its declared action).
 */
import { fileURLToPath } from "node:url";
import { CAPTURE_DDL, captureTrigger } from "../../runtime/events/outbox.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { loadPagila } from "../support/pagila.js";
import { compileFile, serviceClient, type TestClient } from "../support/service.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { hooks } from "../../fixtures/pagila/hooks.js";

/**
 * What the fixture adds to the shipped database: one index, the foreign keys its relations declare that the
 * dump leaves out (on `store.manager_staff_id`, and on the one partition of `payment`, July 2022, that lacks the
 * ones its six siblings have), and the change feed's capture of the three tables declaring events (the outbox,
 * its function and one trigger each, as `resc migrate diff` writes them; docs/decisions/1337-change-feed.md).
 */
export const PAGILA_EXTRA_SQL = [
  "CREATE INDEX film_special_features_gin ON public.film USING gin (special_features)",
  "ALTER TABLE public.store ADD CONSTRAINT store_manager_staff_id_fkey FOREIGN KEY (manager_staff_id) REFERENCES public.staff (staff_id)",
  "ALTER TABLE public.payment_p2022_07 ADD CONSTRAINT payment_p2022_07_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES public.customer (customer_id)",
  "ALTER TABLE public.payment_p2022_07 ADD CONSTRAINT payment_p2022_07_rental_id_fkey FOREIGN KEY (rental_id) REFERENCES public.rental (rental_id)",
  "ALTER TABLE public.payment_p2022_07 ADD CONSTRAINT payment_p2022_07_staff_id_fkey FOREIGN KEY (staff_id) REFERENCES public.staff (staff_id)",
  ...CAPTURE_DDL,
  ...["film", "rental", "payment"].map((t) => captureTrigger(`public.${t}`, `'${t}'`)),
].join("; ");

/** Path of the Pagila fixture. */
export const PAGILA_RESOURCE = fileURLToPath(new URL("../../fixtures/pagila/pagila.resource", import.meta.url));

/** What a Pagila test file works with. */
export interface PagilaContext {
  db: TestDatabase;
  service: ServiceDescriptor;
  client: TestClient;
  drop(): Promise<void>;
}

/** Creates the database, loads Pagila and mounts the service. */
export async function setupPagila(label: string): Promise<PagilaContext> {
  const { service } = await compileFile(PAGILA_RESOURCE);
  const db = await createTestDatabase(label);
  await loadPagila(db, PAGILA_EXTRA_SQL);
  return { db, service, client: serviceClient(service, db.executor, hooks), drop: () => db.drop() };
}
