/**
 * A read takes the `select` a list takes (docs/http.md, "Projection on a
 * read"): the same columns come back for the same `select`, the key always
 * among them, with or without `expand`, and the same refusals; a projected
 * read carries the tag of its body, not the row's version. On a schema with
 * bigint identity keys, a uuid, a numeric, an enum and a nullable reference,
 * on PostgreSQL and the embedded database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileText, serviceClient, type TestClient } from "../support/service.js";

const { service, ddl } = compileText(`
enum stage { draft shipped }

table owners {
  id   bigint @primary_key @default(identity)
  name text

  resource "/owners" { ops = [reads] }
}

table parcels {
  id       bigint  @primary_key @default(identity)
  tracking uuid
  weight   numeric(8,3)
  stage    stage   @default(draft) @filterable
  owner_id bigint? @ref(owner, owners, expandable)
  note     text?

  resource "/parcels" { ops = [crud, list] }
}
`);

let db: TestDatabase;
let api: TestClient;

beforeAll(async () => {
  db = await createTestDatabase("read_select");
  await db.executor.script(
    ddl +
      "\nINSERT INTO owners (name) VALUES ('Ada');" +
      "\nINSERT INTO parcels (tracking, weight, stage, owner_id, note) VALUES " +
      "('6f1c2a52-1f0e-4c5b-9a57-3d9f2b8e4c11', 12.5, 'shipped', 1, 'fragile');",
  );
  api = serviceClient(service, db.executor);
});
afterAll(async () => {
  await db?.drop();
});

describe("select on a read", () => {
  it("returns what a list returns for the same select, key first", async () => {
    for (const select of ["weight", "stage,tracking", "note&select=weight", "weight,weight"]) {
      const listed = await api.get(`/parcels?select=${select}`);
      const read = await api.get(`/parcels/1?select=${select}`);
      expect(read.status, select).toBe(200);
      expect(read.body, select).toEqual(listed.body.items[0]);
      expect(Object.keys(read.body)[0]).toBe("id");
    }
    const one = await api.get("/parcels/1?select=weight");
    expect(one.body).toEqual({ id: 1, weight: "12.500" });
  });

  it("combines with expand as on a list", async () => {
    const listed = await api.get("/parcels?select=stage&expand=owner");
    const read = await api.get("/parcels/1?select=stage&expand=owner");
    expect(read.status).toBe(200);
    expect(read.body).toEqual(listed.body.items[0]);
    expect(read.body).toEqual({
      id: 1,
      stage: "shipped",
      owner: { id: 1, name: "Ada" },
    });
  });

  it("refuses what a list refuses, with the same problems", async () => {
    for (const select of ["nope", "", "weight,,note"]) {
      const listed = await api.get(`/parcels?select=${select}`);
      const read = await api.get(`/parcels/1?select=${select}`);
      expect(read.status, select).toBe(400);
      expect(read.body.errors, select).toEqual(listed.body.errors);
    }
  });

  it("tags a projected read by its body, and answers 304 to that tag", async () => {
    const whole = await api.get("/parcels/1");
    const projected = await api.get("/parcels/1?select=weight");
    const tag = projected.headers.get("etag")!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(tag).not.toBe(whole.headers.get("etag"));
    const again = await api.request("GET", "/parcels/1?select=weight", undefined, { "if-none-match": tag });
    expect(again.status).toBe(304);
  });
});
