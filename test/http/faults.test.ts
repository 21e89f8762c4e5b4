/**
 * A database that cannot be reached is a 503 problem document, quickly,
 * never a crash or a hang (DEVELOPERS.md, Engineering standards; docs/http.md).
 */
import { describe, expect, it } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import { compileFile, serviceClient } from "../support/service.js";
import { hooks } from "../../fixtures/pagila/hooks.js";

describe("database faults", () => {
  it("answers 503 when PostgreSQL is unreachable, on reads and writes", async () => {
    const { service } = await compileFile("fixtures/pagila/pagila.resource");
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const db = createPgExecutor({ connectionString: "postgres://postgres@127.0.0.1:1/none", connectionTimeoutMillis: 2000 });
    const client = serviceClient(service, db, hooks);
    try {
      for (const [method, path, body] of [
        ["GET", "/films"],
        ["GET", "/films/1"],
        ["POST", "/actors", { first_name: "A", last_name: "B" }],
        ["DELETE", "/films/1"],
      ] as const) {
        const r = await client.request(method, path, body);
        expect(r.status, `${method} ${path}`).toBe(503);
        expect(r.headers.get("content-type")).toContain("application/problem+json");
        expect(r.body).toMatchObject({ status: 503, title: "Service Unavailable" });
        expect(r.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
      }
    } finally {
      await db.close();
    }
  });
});
