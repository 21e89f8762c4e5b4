/**
 * A fresh database holding the shipped Pagila, plus exactly the one index
 * the fixture needs (a GIN index for the filterable `film.special_features`,
 * as pagila-mapping.md allows), served in-process from
 * `fixtures/pagila/pagila.resource`.
 */
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { loadPagila } from "../support/pagila.js";
import { compileFile, serviceClient, type TestClient } from "../support/service.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";

/** The index the fixture adds to the shipped database. */
export const PAGILA_EXTRA_SQL = "CREATE INDEX film_special_features_gin ON public.film USING gin (special_features)";

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
  return { db, service, client: serviceClient(service, db.executor), drop: () => db.drop() };
}
