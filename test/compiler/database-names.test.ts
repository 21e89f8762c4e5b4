/**
 * Database names and namespaces (`@map`, `@@map`, `@schema`, `@@schema`;
 * docs/decisions/1257-database-names.md) and columns that are the
 * database's alone (`@ignore`, 1259): what the parser accepts and refuses,
 * what the validator reports, the DDL `resc sql` writes, the descriptors
 * (the API keeps the file's names) and the SQL the runtime builds.
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { formatSource } from "../../grammar/format/index.js";
import { buildDescriptor, compileSource, emitOpenApi, emitSql } from "../../compiler/index.js";
import { compileInsert, compileList, compileRead } from "../../runtime/sql/index.js";
import type { ListQuery } from "../../runtime/query/types.js";
import { check, parseOk, withCode } from "./helpers.js";

const SCHEMA = `
enum role @map("Role") @schema("auth") { USER ADMIN }

domain short_name varchar(50) @map("Name")

table user_account {
  id         serial      @primary_key @filterable @sortable
  created_at timestamptz @map("createdAt") @default(now()) @sortable
  role       role        @default(USER) @filterable
  nick       short_name?
  search     tsvector    @map("searchVector") @ignore

  @@map("UserAccount")
  @@schema("auth")
  @@index([search], using: gin)

  resource "/users" { ops = [crud, list] }
}

table invoice {
  id       serial        @primary_key
  owner_id integer       @map("ownerId") @ref(owner, user_account, expandable) @inverse(invoices, expandable) @filterable
  total    numeric(10,2)

  @@map("Invoice")
  @@index([owner_id])

  resource "/invoices" { ops = [crud, list] }
}
`;

describe("@map and @@schema", () => {
  const compiled = compileSource(SCHEMA, "names.resource");

  it("compile, and the formatter keeps an enum's and a domain's attributes", () => {
    expect(compiled.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const f = formatSource(SCHEMA, "names.resource");
    expect(f.ok && f.text).toMatch(/^enum role @map\("Role"\) @schema\("auth"\) \{ USER ADMIN \}$/m);
    expect(f.ok && f.text).toMatch(/^domain short_name varchar\(50\) @map\("Name"\)$/m);
  });

  it("write the database's names, quoted and qualified, in the DDL, the schema created first", () => {
    const sql = emitSql(compiled.schema);
    expect(sql).toMatch(/CREATE SCHEMA IF NOT EXISTS "auth";[\s\S]*CREATE TYPE "auth"\."Role"/);
    expect(sql).toContain('CREATE DOMAIN "Name" AS varchar(50);');
    expect(sql).toContain('CREATE TABLE "auth"."UserAccount" (');
    expect(sql).toContain('"createdAt" timestamptz DEFAULT now() NOT NULL');
    expect(sql).toContain('"role" "auth"."Role" DEFAULT \'USER\' NOT NULL');
    expect(sql).toContain('"searchVector" tsvector NOT NULL');
    expect(sql).toContain(
      'CREATE INDEX "UserAccount_searchVector_idx" ON "auth"."UserAccount" USING gin ("searchVector");',
    );
    expect(sql).toContain('"ownerId" integer NOT NULL REFERENCES "auth"."UserAccount" ("id")');
  });

  it("keep the file's names in the API; an @ignore column is nowhere in it", () => {
    const service = buildDescriptor(compiled.schema);
    const users = service.tables.find((t) => t.name === "user_account")!;
    expect(users).toMatchObject({ dbName: "UserAccount", schema: "auth" });
    expect(users.columns.map((c) => c.name)).toEqual(["id", "created_at", "role", "nick"]);
    expect(users.columns.find((c) => c.name === "created_at")!.dbName).toBe("createdAt");
    expect(users.columns.find((c) => c.name === "role")!.sqlType).toBe('"auth"."Role"');
    const doc = JSON.stringify(emitOpenApi(compiled.schema));
    expect(doc).toContain('"created_at"');
    expect(doc).not.toContain("createdAt");
    expect(doc).not.toMatch(/search_?[vV]ector|"search"/);
  });

  it("read and write through the database's names in every statement the runtime builds", () => {
    const service = buildDescriptor(compiled.schema);
    const users = service.tables.find((t) => t.name === "user_account")!;
    const invoices = service.tables.find((t) => t.name === "invoice")!;
    const query: ListQuery = {
      where: { kind: "cmp", column: "owner_id", op: "eq", value: 1 },
      sort: [{ column: "id", descending: false }],
      sortRequested: false,
      expand: ["owner"],
      page: 1,
      perPage: 25,
      offset: 0,
      count: false,
    };
    const list = compileList(service, invoices, query);
    expect(list.rows.text).toContain('FROM "Invoice" AS "t0"');
    expect(list.rows.text).toContain('"t0"."ownerId"');
    expect(list.rows.text).toContain('FROM "auth"."UserAccount" AS');
    // An inverse collection on a list page reads the children of the whole page by the database's names (decision 1340).
    const withInvoices = compileList(service, users, { ...query, where: undefined, expand: ["invoices"] });
    expect(withInvoices.rows.text).toMatch(/^WITH "resc_page" AS \(SELECT [^)]* FROM "auth"\."UserAccount" AS "t0"/);
    expect(withInvoices.rows.text).toContain(
      'FROM "Invoice" AS "t1" WHERE "t1"."ownerId" = ANY (ARRAY(SELECT "resc_page"."id" FROM "resc_page"))',
    );
    expect(compileRead(service, users, 1).text).toMatch(/"createdAt"[\s\S]*FROM "auth"\."UserAccount" AS "t0"/);
    const insert = compileInsert(service, invoices, { owner_id: 1, total: "12.50" });
    expect(insert.text).toMatch(/^INSERT INTO "Invoice" AS "t0" \("ownerId", "total"\)/);
  });

  it("refuse two declarations that would be one database object, and a name PostgreSQL would cut", () => {
    const dup = check(`
      table a { id integer @primary_key  @@map("t") }
      table b { id integer @primary_key  x integer @map("id")  @@map("t") }
    `);
    expect(withCode(dup, "duplicate-database-name").map((d) => d.message)).toEqual([
      'Table "b" is public.t in the database, as table "a" is already: give one of them another @map or @schema',
      'Column "x" is "id" in the database, as column "id" of table "b" is already',
    ]);
    const long = parse(`table a { id integer @primary_key @map("${"x".repeat(64)}") }`, "t.resource");
    expect(long.diagnostics.map((d) => d.message)).toContain(
      "The database name in @map is 64 bytes long; PostgreSQL keeps 63",
    );
    const empty = parse(`table a { id integer @primary_key  @@schema("") }`, "t.resource");
    expect(empty.diagnostics.map((d) => d.message)).toContain("The database name in @@schema is empty");
  });
});

describe("@ignore", () => {
  it("may carry only what says how the database stores it, and never a key", () => {
    const ds = check(`
      table a {
        id integer @primary_key @ignore
        v  text    @ignore @filterable
        w  text?   @ignore @map("W") @check("length(w) > 0")
        resource "/a" { ops = [list] }
      }
    `);
    expect(withCode(ds, "ignored-column-capability").map((d) => d.message)).toEqual([
      'Column "id" is @ignore: resc never reads or writes it, so @primary_key has no effect; remove one of them',
      'Column "v" is @ignore: resc never reads or writes it, so @filterable has no effect; remove one of them',
    ]);
    const key = check(`table a { id integer @ignore  n integer  @@primary_key([id, n]) }`);
    expect(withCode(key, "ignored-column-capability").map((d) => d.message)).toEqual([
      'Column "id" is part of the primary key, which addresses every row: it cannot be @ignore',
    ]);
  });

  it("warns when every create needs the database to fill it", () => {
    const ds = check(`
      table a {
        id integer @primary_key @default(identity)
        t  tsvector @ignore
        u  tsvector? @ignore
        resource "/a" { ops = [crud] }
      }
    `);
    expect(withCode(ds, "ignored-required-column").map((d) => d.message)).toEqual([
      'Column "a.t" is @ignore and required: a create of /a succeeds only where the database fills it (a trigger, as in the database it was adopted from); resc sql makes no trigger',
    ]);
    const schema = parseOk(`table a { id integer @primary_key  t tsvector @ignore  @@index([t], using: gist) }`);
    expect(schema.tables[0]!.columns.map((c) => c.name)).toEqual(["id"]);
    expect(emitSql(schema)).toContain('CREATE INDEX "a_t_idx" ON "a" USING gist ("t");');
  });
});
