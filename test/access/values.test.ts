/**
 * Rules over the value kinds a tenancy rule is often written on
 * (docs/access.md, Access rules; docs/decisions/1367-access-rules.md):
 * `numeric` with a fractional literal, an array column `has` a claim, a
 * column `in` an array claim, enum values written bare or quoted, a `jsonb`
 * column's null tests, each compiled from the language and run on
 * PostgreSQL and the embedded database. Each list is compared with an SQL
 * oracle of exactly the rows the rule admits.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { mountService } from "../../runtime/http/mount.js";
import type { Principal } from "../../runtime/auth/principal.js";
import { accessScope } from "../../runtime/access/rules.js";
import { Params } from "../../runtime/sql/bind.js";
import { compileWhere } from "../../runtime/sql/where.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, sendTo } from "../support/service.js";
import { accessDatabase, accessKinds } from "./support.js";
import { principalFromHeader } from "../support/principal.js";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const C = "00000000-0000-4000-8000-00000000000c";

/** One table, one role per rule, so each rule's rows are listed by its own role. */
const SCHEMA = `
enum status { open closed archived }

auth {
  roles = [big, tagged, orgs, opened, openlist, quoted, tagstatus, meta, threshold, tenant, secretive]
  claim team  text
  claim orgs  uuid[]
  claim floor numeric
  claim org   uuid
}

table bills {
  id     bigint   @primary_key @default(identity)
  org_id uuid
  amount numeric(10, 2)
  rate   decimal
  tags   text[]
  status status
  flags  status[]
  meta   jsonb?
  resource "/bills" { ops = [crud, list] }

  access big       { ops = [list, create] rows amount > 10.5 and rate <= 0.25 }
  access tagged    { ops = [list, create] rows tags has claim.team }
  access orgs      { ops = [list, create] rows org_id in claim.orgs }
  access opened    { ops = [list] rows status = open }
  access openlist  { ops = [list] rows status in [open, closed] and status != archived }
  access quoted    { ops = [list] rows status not in ["archived"] }
  access tagstatus { ops = [list] rows flags has closed }
  access meta      { ops = [list] rows meta is not null }
  access threshold { ops = [list] rows amount >= claim.floor }
  access tenant    { ops = [list, read, create] rows org_id = claim.org stamp org_id = claim.org hide [org_id] }
  access secretive { ops = [list, read] rows meta is not null hide [meta] }
}
`;

function as(role: string, claims: Record<string, unknown> = {}): Principal {
  return {
    subject: role,
    roles: [role],
    claims: { sub: role, team: "red", orgs: [A, C], floor: "20.00", org: A, ...claims },
  };
}

describe("the SQL a rule compiles to", () => {
  const { service } = compileText(SCHEMA);
  const bills = service.tables.find((t) => t.name === "bills")!;
  /** The list rule of `role` as the WHERE text and bind parameters it compiles to. */
  const where = (s: ServiceDescriptor, role: string, claims: Record<string, unknown> = {}) => {
    const params = new Params();
    const text = compileWhere(bills, accessScope(s, bills, as(role, claims), "list"), "t", params);
    return { text, values: params.values };
  };

  it("binds every value as a typed parameter: numeric, uuid[], an array's element type and the enum's own type", () => {
    expect(where(service, "big")).toEqual({
      text: '("t"."amount" > $1::numeric) AND ("t"."rate" <= $2::numeric)',
      values: ["10.5", "0.25"],
    });
    expect(where(service, "orgs")).toEqual({ text: '"t"."org_id" = ANY($1::uuid[])', values: [`{"${A}","${C}"}`] });
    expect(where(service, "tagged")).toEqual({ text: '"t"."tags" @> ARRAY[$1::text]', values: ["red"] });
    expect(where(service, "opened")).toEqual({ text: '"t"."status" = $1::status', values: ["open"] });
    expect(where(service, "tagstatus")).toEqual({ text: '"t"."flags" @> ARRAY[$1::status]', values: ["closed"] });
    expect(where(service, "threshold", { floor: "20.00" })).toEqual({
      text: '"t"."amount" >= $1::numeric',
      values: ["20.00"],
    });
  });
});

const kinds = await accessKinds();

describe.each(kinds)("rules over numeric, array, enum and jsonb columns on %s", (kind) => {
  let db: TestDatabase;
  let app: Hono;
  const send = (p: Principal, method: string, path: string, body?: unknown) =>
    sendTo<any>(app, method, path, body, { "x-principal": JSON.stringify(p) });
  const oracle = async (where: string, values: unknown[] = []): Promise<number[]> =>
    (await db.executor.query({ text: `SELECT id FROM bills WHERE ${where}`, values: values as string[] })).rows
      .map((r) => Number(r.id))
      .sort((x, y) => x - y);
  const listed = async (p: Principal): Promise<number[]> => {
    const r = await send(p, "GET", "/bills?per_page=100");
    expect(r.status, r.text).toBe(200);
    return r.body.items.map((i: { id: number }) => Number(i.id)).sort((x: number, y: number) => x - y);
  };

  beforeAll(async () => {
    db = await accessDatabase(kind, "access-values");
    const { ddl, service } = compileText(SCHEMA);
    await db.executor.script(ddl);
    await db.executor.script(`
      INSERT INTO bills (org_id, amount, rate, tags, status, flags, meta) VALUES
        ('${A}', 10.50, 0.25, '{red,blue}', 'open',     '{open}',         '{"k": 1}'),
        ('${A}', 10.51, 0.26, '{blue}',     'closed',   '{closed,open}',  NULL),
        ('${B}', 99.99, 0.10, '{red}',      'archived', '{}',             'null'),
        ('${C}', 20.00, 0.25, '{}',         'open',     '{archived}',     NULL),
        ('${B}',  0.00, 0,    '{green}',    'closed',   '{closed}',       '[]');
    `);
    app = new Hono();
    app.use(principalFromHeader);
    const mounted = mountService(app, service, { db: db.executor });
    if (!mounted.ok) throw new Error(mounted.errors.map((e) => e.message).join("\n"));
  });
  afterAll(async () => db?.drop());

  it("numeric and decimal columns compare with fractional literals exactly", async () => {
    expect(await listed(as("big"))).toEqual(await oracle("amount > 10.5 AND rate <= 0.25"));
    expect(await listed(as("big"))).toEqual([3, 4]);
  });

  it("a numeric claim compares with a numeric column", async () => {
    expect(await listed(as("threshold"))).toEqual(await oracle("amount >= 20"));
    expect(await listed(as("threshold", { floor: "99.99" }))).toEqual([3]);
  });

  it("an array column has a text claim", async () => {
    expect(await listed(as("tagged"))).toEqual(await oracle("tags @> ARRAY[$1]::text[]", ["red"]));
    expect(await listed(as("tagged", { team: "green" }))).toEqual([5]);
    expect(await listed(as("tagged", { team: "none" }))).toEqual([]);
  });

  it("a uuid column is in an array claim; an empty claim admits nothing", async () => {
    expect(await listed(as("orgs"))).toEqual(await oracle("org_id = ANY($1::uuid[])", [[A, C]]));
    expect(await listed(as("orgs", { orgs: [B] }))).toEqual([3, 5]);
    expect(await listed(as("orgs", { orgs: [] }))).toEqual([]);
  });

  it("enum values are written bare or quoted, alone, in lists and as an enum array's element", async () => {
    expect(await listed(as("opened"))).toEqual(await oracle("status = 'open'"));
    expect(await listed(as("openlist"))).toEqual(await oracle("status IN ('open', 'closed')"));
    expect(await listed(as("quoted"))).toEqual(await oracle("status <> 'archived'"));
    expect(await listed(as("tagstatus"))).toEqual(await oracle("flags @> ARRAY['closed']::status[]"));
    expect(await listed(as("opened"))).toEqual([1, 4]);
  });

  it("a jsonb column's null test is SQL's: a JSON null is a value", async () => {
    expect(await listed(as("meta"))).toEqual(await oracle("meta IS NOT NULL"));
    expect(await listed(as("meta"))).toEqual([1, 3, 5]);
  });

  it("a rule over a column the role hides still confines it, and the column is never served", async () => {
    expect(await listed(as("secretive"))).toEqual(await oracle("meta IS NOT NULL"));
    const r = await send(as("secretive"), "GET", "/bills?per_page=100");
    expect(r.body.items.length).toBeGreaterThan(0);
    for (const item of r.body.items) expect(item).not.toHaveProperty("meta");
    expect((await send(as("secretive"), "GET", "/bills?meta=notnull")).status).toBe(400);
    expect((await send(as("secretive"), "GET", "/bills/2")).status).toBe(404);
  });

  it("a column stamped and hidden is set from the claim, judged by the rule, and neither sent nor served", async () => {
    const body = { amount: "3", rate: "0", tags: [], status: "open", flags: [] };
    const made = await send(as("tenant", { org: C }), "POST", "/bills", body);
    expect(made.status, made.text).toBe(201);
    expect(made.body).not.toHaveProperty("org_id");
    expect(await oracle("id = $1 AND org_id = $2", [made.body.id, C])).toEqual([Number(made.body.id)]);
    const sent = await send(as("tenant", { org: C }), "POST", "/bills", { ...body, org_id: C });
    expect(sent.status, sent.text).toBe(400);
    expect(await listed(as("tenant", { org: C }))).toEqual(await oracle("org_id = $1", [C]));
    const read = await send(as("tenant", { org: C }), "GET", `/bills/${made.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty("org_id");
    expect((await send(as("tenant", { org: A }), "GET", `/bills/${made.body.id}`)).status).toBe(404);
  });

  it("writes are checked with the same casts: a created row outside the rule is a 403", async () => {
    const ok = await send(as("big"), "POST", "/bills", {
      org_id: A,
      amount: "10.6",
      rate: "0.1",
      tags: [],
      status: "open",
      flags: [],
    });
    expect(ok.status, ok.text).toBe(201);
    const low = await send(as("big"), "POST", "/bills", {
      org_id: A,
      amount: "10.5",
      rate: "0.1",
      tags: [],
      status: "open",
      flags: [],
    });
    expect(low.status, low.text).toBe(403);
    const tagged = await send(as("tagged"), "POST", "/bills", {
      org_id: A,
      amount: "1",
      rate: "0",
      tags: ["blue", "red"],
      status: "open",
      flags: [],
    });
    expect(tagged.status, tagged.text).toBe(201);
    const untagged = await send(as("tagged"), "POST", "/bills", {
      org_id: A,
      amount: "1",
      rate: "0",
      tags: ["blue"],
      status: "open",
      flags: [],
    });
    expect(untagged.status, untagged.text).toBe(403);
    const foreign = await send(as("orgs"), "POST", "/bills", {
      org_id: B,
      amount: "1",
      rate: "0",
      tags: [],
      status: "open",
      flags: [],
    });
    expect(foreign.status, foreign.text).toBe(403);
    const own = await send(as("orgs"), "POST", "/bills", {
      org_id: C,
      amount: "1",
      rate: "0",
      tags: [],
      status: "open",
      flags: [],
    });
    expect(own.status, own.text).toBe(201);
  });
});
