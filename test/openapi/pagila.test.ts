/** Pagila's OpenAPI document against the service over the shipped Pagila database. */
import { afterAll, beforeAll } from "vitest";
import { emitOpenApi } from "../../compiler/index.js";
import { compileFile } from "../support/service.js";
import { PAGILA_RESOURCE, setupPagila, type PagilaContext } from "../pagila/setup.js";
import { conformanceSuite, type LiveService } from "./conformance.js";

let ctx: PagilaContext;
let live: LiveService;

beforeAll(async () => {
  ctx = await setupPagila("openapi_pagila");
  const { schema } = await compileFile(PAGILA_RESOURCE);
  live = { doc: emitOpenApi(schema), service: ctx.service, client: ctx.client };
}, 120_000);
afterAll(async () => {
  await ctx?.drop();
});

conformanceSuite("Pagila", () => live);
