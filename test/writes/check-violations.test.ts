/**
 * A value a column's own `@check` refuses is a 422 naming the field, on
 * PostgreSQL and on the embedded database (a hidden column's, which only a
 * hook can break, is said to be hidden, never named:
 * test/faults/db-errors.test.ts); a domain's check names no field yet.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileText } from "../support/service.js";
import { databaseKinds, freshDatabase } from "../idempotency/support.js";
import type { TestDatabase } from "../support/db.js";
import { mounted, type Client } from "../hooks/support.js";

const SCHEMA = `
domain isbn_code text @check("VALUE ~ '^[0-9]{13}$'")
table books {
  id     bigint    @primary_key @default(identity)
  isbn   isbn_code
  price  numeric   @check("price >= 0")
  resource "/books" { ops = [crud, list] }
}
`;

describe.each(await databaseKinds())("check violations on %s", (kind) => {
  const { service, ddl } = compileText(SCHEMA, "books.resource");
  let db: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    db = await freshDatabase(kind, "check_violations");
    await db.executor.script(ddl);
    await db.executor.script("INSERT INTO books (isbn, price) VALUES ('9780262510875', 10)");
    client = mounted(service, { db: db.executor });
  });
  afterAll(() => db?.drop());

  it("names the column of its own check", async () => {
    const r = await client.request("PATCH", "/books/1", { price: "-5" });
    expect(r.status, r.text).toBe(422);
    expect(r.body).toMatchObject({
      type: "/problems/check-violation",
      errors: [{ location: "body.price", detail: "breaks the column's check" }],
    });
  });
});
