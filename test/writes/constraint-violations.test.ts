/**
 * A unique or foreign-key violation names the request's field, on PostgreSQL and on the embedded database
 * (runtime/http/db-errors.ts, docs/decisions/0312-delete-still-referenced.md): a 409 on a mapped camelCase
 * `@unique`, a composite `@@unique` and a unique expression index (the database's own, as adopted databases have
 * them), and a 422 `reference-violation` on create and update at `body.<reference column>`. A hidden column is
 * never named.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileText } from "../support/service.js";
import { databaseKinds, freshDatabase } from "../idempotency/support.js";
import type { TestDatabase } from "../support/db.js";
import { mounted, type Client } from "../hooks/support.js";

const SCHEMA = `
table users {
  id         bigint  @primary_key @default(identity)
  user_email text    @map("userEmail") @unique
  org        text
  handle     text
  nick       text?
  pin_code   text?   @hidden
  @@unique([org, handle])
  @@map("User")
  resource "/users" { ops = [crud, list] }
}

table posts {
  id        bigint @primary_key @default(identity)
  author_id bigint @map("authorId") @ref(author, users) @inverse(posts)
  title     text
  @@map("Post")
  resource "/posts" { ops = [crud, list] }
}
`;

describe.each(await databaseKinds())("unique and foreign-key violations on %s", (kind) => {
  const { service, ddl } = compileText(SCHEMA, "violations.resource");
  let db: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    db = await freshDatabase(kind, "constraint_violations");
    await db.executor.script(ddl);
    // What the language cannot declare, as an adopted database has it: a unique expression index, and one over a
    // hidden column.
    await db.executor.script(`
      CREATE UNIQUE INDEX user_nick_lower ON "User" (lower(nick));
      CREATE UNIQUE INDEX user_pin ON "User" (org, pin_code);
      INSERT INTO "User" ("userEmail", org, handle, nick, pin_code) VALUES ('a@x', 'acme', 'ann', 'Ann', '1234');
      INSERT INTO "Post" ("authorId", title) VALUES (1, 'hello');
    `);
    client = mounted(service, { db: db.executor });
  });
  afterAll(() => db?.drop());

  const taken = (field: string) => ({ location: `body.${field}`, detail: "this value is already taken" });

  it("a 409 on a mapped camelCase @unique names its API name", async () => {
    const r = await client.request("POST", "/users", { user_email: "a@x", org: "o", handle: "h" });
    expect(r.status, r.text).toBe(409);
    expect(r.body).toMatchObject({ type: "/problems/conflict", errors: [taken("user_email")] });
  });

  it("a 409 on a composite @@unique names both columns", async () => {
    const r = await client.request("POST", "/users", { user_email: "b@x", org: "acme", handle: "ann" });
    expect(r.status, r.text).toBe(409);
    expect(r.body).toMatchObject({ errors: [taken("org"), taken("handle")] });
  });

  it("a 409 on a unique expression index names the column its expression uses, on create and update", async () => {
    const created = await client.request("POST", "/users", { user_email: "c@x", org: "o", handle: "c", nick: "ANN" });
    expect(created.status, created.text).toBe(409);
    expect(created.body).toMatchObject({ errors: [taken("nick")] });
    const other = await client.request("POST", "/users", { user_email: "d@x", org: "o", handle: "d" });
    expect(other.status, other.text).toBe(201);
    const id = (other.body as { id: string | number }).id;
    const updated = await client.request("PATCH", `/users/${id}`, { nick: "aNN" });
    expect(updated.status, updated.text).toBe(409);
    expect(updated.body).toMatchObject({ errors: [taken("nick")] });
  });

  it("a 409 on an index covering a hidden column names nothing", async () => {
    // Only the database can break it here: a second row of acme with pin 1234, written beside resc.
    const r = await db.executor
      .script(`INSERT INTO "User" ("userEmail", org, handle, pin_code) VALUES ('z@x', 'acme', 'zed', '1234')`)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((r as { code?: string }).code).toBe("23505");
    const { toProblem } = await import("../../runtime/http/db-errors.js");
    const doc = toProblem(
      r,
      service.tables.find((t) => t.name === "users"),
    ).toDocument();
    expect(doc.status).toBe(409);
    expect(doc.errors).toEqual([]);
    expect(JSON.stringify(doc)).not.toMatch(/pin/);
  });

  it("under row-level security PostgreSQL omits the detail: the constraint's name still names the columns", async () => {
    const role = `violations_${kind}_${process.pid}`;
    const refused = await db.executor
      .transaction(async (tx) => {
        await tx.script(`
          ALTER TABLE "User" ENABLE ROW LEVEL SECURITY;
          CREATE POLICY everyone ON "User" USING (true) WITH CHECK (true);
          CREATE ROLE ${role};
          GRANT SELECT, INSERT ON "User" TO ${role};
          SET LOCAL ROLE ${role};
        `);
        await tx.script(`INSERT INTO "User" ("userEmail", org, handle) VALUES ('a@x', 'o', 'rls')`);
      })
      .then(
        () => undefined,
        (e: unknown) => e as { code?: string; detail?: string; constraint?: string },
      );
    expect(refused?.code).toBe("23505");
    expect(refused?.detail).toBeUndefined();
    const { toProblem } = await import("../../runtime/http/db-errors.js");
    const doc = toProblem(
      refused,
      service.tables.find((t) => t.name === "users"),
    ).toDocument();
    expect(doc.errors).toEqual([taken("user_email")]);
  });

  it("a 422 reference-violation names the reference column on create and on update", async () => {
    const created = await client.request("POST", "/posts", { author_id: 999, title: "t" });
    expect(created.status, created.text).toBe(422);
    expect(created.body).toMatchObject({
      type: "/problems/reference-violation",
      errors: [{ location: "body.author_id", detail: "no such referenced row, or still referenced" }],
    });
    const updated = await client.request("PATCH", "/posts/1", { author_id: 998 });
    expect(updated.status, updated.text).toBe(422);
    expect(updated.body).toMatchObject({
      type: "/problems/reference-violation",
      errors: [{ location: "body.author_id", detail: "no such referenced row, or still referenced" }],
    });
  });
});
