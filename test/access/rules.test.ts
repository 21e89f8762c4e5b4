/**
 * Declared access rules on the REST surface (docs/decisions/1367-access-rules.md),
 * on PostgreSQL and the embedded database: a hand-built `auth` and `access`
 * descriptor (the language's own syntax is tested with the grammar), a
 * hand-written middleware setting the principal, two tenants and three roles.
 * Each list is compared with an SQL oracle of exactly the rows the principal
 * may see.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { mountService } from "../../runtime/http/mount.js";
import type { Principal } from "../../runtime/auth/principal.js";
import type { AccessDescriptor, ServiceDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, sendTo } from "../support/service.js";
import { accessDatabase, accessKinds } from "./support.js";
import { principalFromHeader } from "../support/principal.js";

const SCHEMA = `
table orgs {
  id   uuid @primary_key
  name text
  resource "/orgs" { ops = [reads] }
}
table docs {
  id         bigint       @primary_key @default(identity)
  org_id     uuid         @ref(org, orgs) @filterable
  author_id  text         @filterable
  title      text         @filterable @sortable
  level      int          @default(0) @filterable
  note       text?        @filterable @sortable
  deleted_at timestamptz? @soft_delete @hidden
  @@scoped
  resource "/docs" { ops = [crud, list] filtered_writes = true default_sort = [-note] }
}
table remarks {
  id     bigint @primary_key @default(identity)
  org_id uuid   @ref(org, orgs)
  doc_id bigint @ref(doc, docs, expandable) @filterable @inverse(remarks, expandable)
  body   text
  resource "/remarks" { ops = [reads, create] }
}
table shelves {
  id     bigint @primary_key @default(identity)
  org_id uuid   @ref(org, orgs)
  name   text   @filterable
  resource "/shelves" { ops = [crud, list] filtered_writes = true }
}
table books {
  id       bigint @primary_key @default(identity)
  shelf_id bigint @ref(shelf, shelves)
  resource "/books" { ops = [reads] }
}
`;

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";

const tenant = { kind: "cmp", column: "org_id", op: "eq", value: { claim: "org" } } as const;

/** member: its org's rows up to its clearance, edits its own, `note` hidden; viewer: reads only; admin: all. */
const DOC_ACCESS: AccessDescriptor[] = [
  {
    roles: ["member"],
    ops: ["list", "read", "create", "update", "delete"],
    rows: [
      {
        rule: {
          kind: "and",
          children: [tenant, { kind: "cmp", column: "level", op: "lte", value: { claim: "clearance" } }],
        },
      },
      { ops: ["update", "delete"], rule: { kind: "cmp", column: "author_id", op: "eq", value: { claim: "sub" } } },
    ],
    stamps: [
      { column: "org_id", claim: "org" },
      { column: "author_id", claim: "sub" },
    ],
    hide: ["note"],
  },
  { roles: ["viewer"], ops: ["list", "read"], rows: [{ rule: tenant }], stamps: [], hide: ["note"] },
  { roles: ["admin"], ops: ["list", "read", "create", "update", "delete"], rows: [], stamps: [], hide: [] },
];

function governedService(service: ServiceDescriptor): ServiceDescriptor {
  const access: Record<string, AccessDescriptor[]> = {
    orgs: [
      {
        roles: ["member", "viewer", "admin"],
        ops: ["list", "read"],
        rows: [{ rule: { kind: "cmp", column: "id", op: "eq", value: { claim: "org" } } }],
        stamps: [],
        hide: [],
      },
    ],
    docs: DOC_ACCESS,
    // No soft delete here: a delete of a shelf books still stand on is refused by the foreign key.
    shelves: [
      {
        roles: ["member"],
        ops: ["list", "read", "create", "update", "delete"],
        rows: [{ rule: tenant }],
        stamps: [{ column: "org_id", claim: "org" }],
        hide: [],
      },
      { roles: ["admin"], ops: ["list", "read", "create", "update", "delete"], rows: [], stamps: [], hide: [] },
    ],
    remarks: [
      { roles: ["member"], ops: ["list", "read"], rows: [{ rule: tenant }], stamps: [], hide: [] },
      // Through the relation: the remark's doc must be in the viewer's org and at level 0.
      {
        roles: ["viewer"],
        ops: ["list", "read", "create"],
        rows: [
          {
            rule: {
              kind: "and",
              children: [
                { kind: "cmp", column: "org_id", relation: "doc", op: "eq", value: { claim: "org" } },
                { kind: "cmp", column: "level", relation: "doc", op: "eq", value: { literal: 0 } },
              ],
            },
          },
        ],
        stamps: [{ column: "org_id", claim: "org" }],
        hide: [],
      },
    ],
  };
  return {
    ...service,
    auth: {
      roles: ["member", "viewer", "admin"],
      roleClaim: ["role"],
      claims: [
        { name: "sub", path: ["sub"], kind: "text", array: false, sqlType: "text", nullable: false },
        { name: "org", path: ["org"], kind: "uuid", array: false, sqlType: "uuid", nullable: false },
        { name: "clearance", path: ["clearance"], kind: "integer", array: false, sqlType: "integer", nullable: true },
      ],
    },
    tables: service.tables.map((t): TableDescriptor => ({ ...t, access: access[t.name] ?? [] })),
  };
}

function principal(role: string, org: string, sub: string, clearance: number | null = 5): Principal {
  return { subject: sub, roles: [role], claims: { sub, org, clearance } };
}

const kinds = await accessKinds();

describe.each(kinds)("declared access rules on %s", (kind) => {
  let db: TestDatabase;
  let app: Hono;
  const as = (p: Principal | undefined): Record<string, string> => (p ? { "x-principal": JSON.stringify(p) } : {});
  const send = (
    p: Principal | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => sendTo<any>(app, method, path, body, { ...as(p), ...headers });
  const oracle = async (sql: string, values: unknown[]): Promise<number[]> =>
    (await db.executor.query({ text: sql, values: values as string[] })).rows
      .map((r) => Number(r.id))
      .sort((x, y) => x - y);
  const ids = (rows: { id: number }[]): number[] => rows.map((r) => Number(r.id)).sort((x, y) => x - y);

  const memberA = principal("member", A, "alice", 2);
  const memberA2 = principal("member", A, "amos", 5);
  const viewerB = principal("viewer", B, "bob");
  const admin = principal("admin", B, "root");

  beforeAll(async () => {
    db = await accessDatabase(kind, "access-rules");
    const { ddl, service } = compileText(SCHEMA);
    await db.executor.script(ddl);
    await db.executor.script(`
      INSERT INTO orgs VALUES ('${A}', 'A'), ('${B}', 'B');
      INSERT INTO docs (org_id, author_id, title, level, note, deleted_at) VALUES
        ('${A}', 'alice', 'a1', 1, 'n1', NULL), ('${A}', 'amos', 'a2', 4, 'n2', NULL),
        ('${A}', 'alice', 'a3', 0, NULL, now()), ('${B}', 'bob', 'b1', 0, 'n4', NULL),
        ('${B}', 'bob', 'b2', 9, NULL, NULL);
      INSERT INTO remarks (org_id, doc_id, body) VALUES ('${A}', 1, 'r1'), ('${A}', 2, 'r2'), ('${B}', 4, 'r3');
      INSERT INTO shelves (org_id, name) VALUES ('${A}', 'sa'), ('${B}', 'sb'), ('${A}', 'empty');
      INSERT INTO books (shelf_id) VALUES (1), (2);
    `);
    app = new Hono();
    app.use(principalFromHeader);
    const mounted = mountService(app, governedService(service), { db: db.executor });
    if (!mounted.ok) throw new Error(mounted.errors.map((e) => e.message).join("\n"));
  });
  afterAll(async () => db?.drop());

  it("lists exactly the rows each principal may see (SQL oracle), soft-deleted rows for nobody", async () => {
    const cases: [Principal, string, unknown[]][] = [
      [memberA, "SELECT id FROM docs WHERE org_id = $1 AND level <= $2 AND deleted_at IS NULL", [A, 2]],
      [memberA2, "SELECT id FROM docs WHERE org_id = $1 AND level <= $2 AND deleted_at IS NULL", [A, 5]],
      [viewerB, "SELECT id FROM docs WHERE org_id = $1 AND deleted_at IS NULL", [B]],
      [admin, "SELECT id FROM docs WHERE deleted_at IS NULL", []],
    ];
    for (const [p, sql, values] of cases) {
      const r = await send(p, "GET", "/docs");
      expect(r.status, r.text).toBe(200);
      expect(ids(r.body.items)).toEqual(await oracle(sql, values));
    }
  });

  it("a member without a clearance claim sees nothing: a comparison with an absent claim is false", async () => {
    const r = await send(principal("member", A, "alice", null), "GET", "/docs");
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([]);
  });

  it("no principal is a 401; a role not granted the operation is a 403; a row out of scope is a 404", async () => {
    expect((await send(undefined, "GET", "/docs")).status).toBe(401);
    const denied = await send(viewerB, "POST", "/docs", { title: "x" });
    expect(denied.status).toBe(403);
    expect(denied.body.type).toBe("/problems/forbidden");
    expect((await send(viewerB, "GET", "/docs/1")).status).toBe(404);
    expect((await send(memberA, "GET", "/docs/4")).status).toBe(404);
    expect((await send(memberA, "GET", "/docs/1")).status).toBe(200);
    // A soft-deleted row is gone, even for the role that may see everything.
    expect((await send(admin, "GET", "/docs/3")).status).toBe(404);
  });

  it("hides a column from the roles that hide it, in every sense", async () => {
    const m = await send(memberA, "GET", "/docs/1");
    expect(m.body).not.toHaveProperty("note");
    const a = await send(admin, "GET", "/docs/1");
    expect(a.body.note).toBe("n1");
    const filter = await send(memberA, "GET", "/docs?note=eq.n1");
    expect(filter.status).toBe(400);
    expect(JSON.stringify(filter.body.errors[0].allowed)).not.toContain("note");
    expect((await send(admin, "GET", "/docs?note=eq.n1")).status).toBe(200);
    expect((await send(memberA, "GET", "/docs?select=id,note")).status).toBe(400);
    const write = await send(memberA, "PATCH", "/docs/1", { note: "x" });
    expect(write.status).toBe(400);
  });

  it("stamps the tenant and author from claims; the stamped columns are not writable", async () => {
    const created = await send(memberA, "POST", "/docs", { title: "new", level: 1 });
    expect(created.status, created.text).toBe(201);
    const row = (
      await db.executor.query({
        text: "SELECT org_id::text AS o, author_id AS a FROM docs WHERE id = $1",
        values: [String(created.body.id)],
      })
    ).rows[0];
    expect(row).toEqual({ o: A, a: "alice" });
    const forged = await send(memberA, "POST", "/docs", { title: "forged", org_id: B });
    expect(forged.status).toBe(400);
    expect(JSON.stringify(forged.body.errors)).toContain("org_id");
    // The admin's grant stamps nothing: it writes the tenant and author itself, within the orgs it may read.
    const placed = await send(admin, "POST", "/docs", { title: "placed", org_id: B, author_id: "amos" });
    expect(placed.status, placed.text).toBe(201);
    expect(placed.body).toMatchObject({ org_id: B, author_id: "amos" });
    // Org A is not one the admin's orgs rule lets it read: the reference is refused like a missing row.
    const elsewhere = await send(admin, "POST", "/docs", { title: "elsewhere", org_id: A, author_id: "amos" });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors).toEqual([
      { location: "body.org_id", detail: "org_id does not name a orgs row you may read" },
    ]);
  });

  it("a write whose row would leave the rule is a 403 and writes nothing (create, bulk, update, filtered update, upsert)", async () => {
    const before = await oracle("SELECT id FROM docs", []);
    const high = await send(memberA, "POST", "/docs", { title: "too high", level: 3 });
    expect(high.status).toBe(403);
    expect(high.body.errors[0].location).toBe("body");
    const bulk = await send(memberA, "POST", "/docs", [
      { title: "ok", level: 0 },
      { title: "too high", level: 7 },
    ]);
    expect(bulk.status).toBe(403);
    expect(bulk.body.errors[0].location).toBe("body[1]");
    expect(await oracle("SELECT id FROM docs", [])).toEqual(before);
    const raise = await send(memberA, "PATCH", "/docs/1", { level: 3 });
    expect(raise.status).toBe(403);
    const filtered = await send(memberA, "PATCH", "/docs?title=eq.a1", { level: 9 });
    expect(filtered.status).toBe(403);
    const level = (await db.executor.query({ text: "SELECT level FROM docs WHERE id = 1", values: [] })).rows[0];
    expect(Number(level!.level)).toBe(1);
    // An update within the rule goes through.
    expect((await send(memberA, "PATCH", "/docs/1", { level: 2 })).status).toBe(200);
  });

  it("rows(update, delete) confines writes to the author: someone else's row in the same org is a 404", async () => {
    expect((await send(memberA2, "GET", "/docs/1")).status).toBe(200);
    expect((await send(memberA2, "PATCH", "/docs/1", { title: "mine now" })).status).toBe(404);
    expect((await send(memberA2, "DELETE", "/docs/1")).status).toBe(404);
  });

  it("expansions are confined by the target's rules in both directions", async () => {
    const inverse = await send(viewerB, "GET", "/docs?expand=remarks");
    expect(inverse.status, inverse.text).toBe(200);
    const seen = inverse.body.items.flatMap((d: { remarks: { items: { body: string }[] } }) =>
      d.remarks.items.map((r) => r.body),
    );
    expect(seen).toEqual(["r3"]);
    // The admin reads every doc, but remarks grant it nothing: the inverse collections are empty.
    const adminView = await send(admin, "GET", "/docs?expand=remarks");
    expect(adminView.body.items.every((d: { remarks: { items: unknown[] } }) => d.remarks.items.length === 0)).toBe(
      true,
    );
    const forward = await send(viewerB, "GET", "/remarks?expand=doc");
    expect(forward.status, forward.text).toBe(200);
    expect(forward.body.items.map((r: { body: string }) => r.body)).toEqual(["r3"]);
    // The viewer may read docs of org B only; remarks of A are out of its scope.
    const viaA = await send(memberA2, "GET", "/remarks?expand=doc");
    const docTitles = viaA.body.items.map((r: { doc: { title: string } | null }) => r.doc?.title ?? null);
    expect(docTitles).toEqual(["a1", "a2"]);
  });

  it("a rule through a forward relation judges the referenced row, on reads, expansions and writes", async () => {
    const oracleSql = "SELECT r.id FROM remarks r JOIN docs d ON d.id = r.doc_id WHERE d.org_id = $1 AND d.level = 0";
    const listed = await send(viewerB, "GET", "/remarks");
    expect(listed.status, listed.text).toBe(200);
    expect(ids(listed.body.items)).toEqual(await oracle(oracleSql, [B]));
    // Doc 5 is B's at level 9: a remark on it is outside the rule, so creating one is refused and nothing is written.
    const before = await oracle("SELECT id FROM remarks", []);
    const refused = await send(viewerB, "POST", "/remarks", { doc_id: 5, body: "on a high doc" });
    expect(refused.status, refused.text).toBe(403);
    expect(await oracle("SELECT id FROM remarks", [])).toEqual(before);
    // Doc 1 is org A's: the viewer may not read it, so the reference itself is refused (as a missing row).
    const foreign = await send(viewerB, "POST", "/remarks", { doc_id: 1, body: "on A's doc" });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors[0].location).toBe("body.doc_id");
    const bulk = await send(viewerB, "POST", "/remarks", [
      { doc_id: 4, body: "fine" },
      { doc_id: 2, body: "A's" },
    ]);
    expect(bulk.status).toBe(422);
    expect(bulk.body.errors.map((e: { location: string }) => e.location)).toEqual(["body[1].doc_id"]);
    // A soft-deleted doc is not there either.
    expect((await send(memberA, "POST", "/remarks", { doc_id: 3, body: "on a gone doc" })).status).toBe(403);
    const made = await send(viewerB, "POST", "/remarks", { doc_id: 4, body: "on a level-0 doc" });
    expect(made.status, made.text).toBe(201);
    // As an expansion's target: docs expanding their remarks see only remarks the rule admits.
    const expanded = await send(viewerB, "GET", "/docs?expand=remarks");
    const seen = expanded.body.items.flatMap((d: { remarks: { items: { id: number }[] } }) => d.remarks.items);
    expect(ids(seen)).toEqual(await oracle(oracleSql, [B]));
  });

  it("a column hidden from any of the caller's roles stays hidden, and never orders its default sort", async () => {
    const both: Principal = {
      subject: "amos",
      roles: ["member", "admin"],
      claims: { sub: "amos", org: A, clearance: 5 },
    };
    const r = await send(both, "GET", "/docs/2");
    expect(r.status, r.text).toBe(200);
    expect(r.body).not.toHaveProperty("note");
    // The default order is by note; for a role that may not read it, the order and the cursor must not tell it.
    const page = await send(memberA2, "GET", "/docs?per_page=1");
    expect(page.status, page.text).toBe(200);
    const cursor = JSON.parse(Buffer.from(String(page.body.next_cursor), "base64url").toString("utf8")) as {
      o: string;
    };
    expect(cursor.o).not.toContain("note");
    const adminPage = await send(admin, "GET", "/docs?per_page=1");
    const adminCursor = JSON.parse(Buffer.from(String(adminPage.body.next_cursor), "base64url").toString("utf8")) as {
      o: string;
    };
    expect(adminCursor.o).toContain("note");
    // Without the hidden column the default order is the primary key's, so every row is listed once across pages.
    const seen: number[] = [];
    for (let next: string | undefined = "/docs?per_page=1"; next !== undefined;) {
      const r = await send(memberA2, "GET", next);
      expect(r.status, r.text).toBe(200);
      seen.push(...r.body.items.map((d: { id: number }) => Number(d.id)));
      next = r.body.next_cursor ? `/docs?per_page=1&cursor=${r.body.next_cursor}` : undefined;
    }
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
    expect(seen).toEqual(
      await oracle("SELECT id FROM docs WHERE org_id = $1 AND level <= $2 AND deleted_at IS NULL", [A, 5]),
    );
    // Asked for by name, it is a hidden column like any other.
    const sorted = await send(memberA2, "GET", "/docs?sort=note");
    expect(sorted.status).toBe(400);
    expect(sorted.body.errors[0].location).toBe("query.sort");
  });

  it("a write naming a row out of reach is the missing row's 404, never a 409 or 412, even while rows refer to it", async () => {
    const missing = await send(memberA, "DELETE", "/shelves/999");
    expect(missing.status).toBe(404);
    const gone = { type: missing.body.type, detail: missing.body.detail, errors: missing.body.errors };
    const shelves = (): Promise<number[]> => oracle("SELECT id FROM shelves", []);
    const before = await shelves();
    // Shelf 2 is org B's, and a book still stands on it.
    for (const ifMatch of [{}, { "if-match": '"v1"' }, { "if-match": "*" }] as Record<string, string>[]) {
      const del = await send(memberA, "DELETE", "/shelves/2", undefined, ifMatch);
      expect(del.status, `DELETE ${JSON.stringify(ifMatch)}: ${del.text}`).toBe(404);
      expect(del.body).toMatchObject(gone);
      const upd = await send(memberA, "PATCH", "/shelves/2", { name: "mine" }, ifMatch);
      expect(upd.status, `PATCH ${JSON.stringify(ifMatch)}: ${upd.text}`).toBe(404);
      expect(upd.body).toMatchObject(gone);
    }
    // The same on a soft-deleting table, for a row out of the author rule of its own org.
    for (const ifMatch of [{}, { "if-match": '"v1"' }] as Record<string, string>[]) {
      expect((await send(memberA2, "DELETE", "/docs/1", undefined, ifMatch)).body).toMatchObject({
        type: "/problems/not-found",
      });
    }
    expect(await shelves()).toEqual(before);
    // Within reach, the same delete is the 409 of a row still referred to.
    const held = await send(admin, "DELETE", "/shelves/2");
    expect(held.status, held.text).toBe(409);
    expect(held.body).toMatchObject({
      type: "/problems/still-referenced",
      errors: [{ location: "path.id", value: "2" }],
    });
    expect(await shelves()).toEqual(before);
  });

  it("a filtered delete of a row still referred to is a 409 located at the query, and deletes nothing", async () => {
    const held = await send(memberA, "DELETE", "/shelves?name=in.(sa,empty)");
    expect(held.status, held.text).toBe(409);
    expect(held.body).toMatchObject({
      type: "/problems/still-referenced",
      errors: [{ location: "query", detail: "a matching row is still referred to by rows of /books" }],
    });
    expect(held.text).not.toContain("body");
    expect(await oracle("SELECT id FROM shelves", [])).toEqual([1, 2, 3]);
    // Another org's referred-to shelf matches nothing for this caller: not a 409.
    const elsewhere = await send(memberA, "DELETE", "/shelves?name=eq.sb");
    expect(elsewhere.status, elsewhere.text).toBe(200);
    expect(elsewhere.body).toEqual([]);
    expect(await oracle("SELECT id FROM shelves", [])).toEqual([1, 2, 3]);
  });

  it("idempotent replays are scoped by the whole principal: the same subject in two tenants is two callers", async () => {
    const key = { "idempotency-key": `tenants-${kind}` };
    const inA = await send(
      principal("admin", A, "root"),
      "POST",
      "/docs",
      { title: "t", org_id: A, author_id: "root" },
      key,
    );
    expect(inA.status, inA.text).toBe(201);
    const inB = await send(admin, "POST", "/docs", { title: "t", org_id: B, author_id: "root" }, key);
    expect(inB.status, inB.text).toBe(201);
    expect(inB.headers.get("idempotent-replayed")).toBeNull();
    expect(inB.body.id).not.toBe(inA.body.id);
  });

  it("idempotent replays are scoped by the principal's subject", async () => {
    const key = { "idempotency-key": `k-${kind}` };
    const first = await send(memberA2, "POST", "/docs", { title: "keyed", level: 1 }, key);
    expect(first.status).toBe(201);
    const replay = await send(memberA2, "POST", "/docs", { title: "keyed", level: 1 }, key);
    expect(replay.body.id).toBe(first.body.id);
    const other = await send(memberA, "POST", "/docs", { title: "keyed", level: 1 }, key);
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(first.body.id);
  });
});
