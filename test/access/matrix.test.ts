/**
 * The access matrix (docs/decisions/1367-access-rules.md; docs/access.md):
 * the rules of one schema written in the language
 * (test/access/fixtures/matrix.resource: two tenants keyed by uuid, projects
 * keyed by a bigint identity with an @map'ed "Project Code", labels keyed by
 * text, a composite-key link table, an enum, nullable references, a
 * soft-delete column, an action, a change feed and filtered writes), three
 * roles (viewer: reads, budget hidden; member: reads and writes within its
 * tenant, updates and deletes its own rows; admin: everything) by two
 * tenants, each caller a real HS256 token verified by the built-in
 * verification, on PostgreSQL, PGlite and PostgreSQL through PgBouncer.
 *
 * Every surface's answer is compared with an SQL oracle: the rule written
 * in SQL, run on the database directly, naming exactly the rows the caller
 * may reach. A role not granted an operation is a 403, a row out of reach a
 * 404, and a hidden column appears nowhere (rows, expansions, events,
 * webhook payloads, a 400's `allowed` lists). The typed client and the
 * command tree generated from the same schema are surfaces too.
 *
 * Each database kind has one database, one served service and one set of
 * streams and receivers; a cell that writes makes rows of its own (codes
 * with a prefix of its own) and leaves the seeded rows as they were (the
 * last, the CLI's, advances project 1), so every cell reads the same seed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitClient, emitCommandTree, emitOpenApi } from "../../compiler/index.js";
import type { Operation } from "../../compiler/backends/openapi/types.js";
import type { Principal } from "../../runtime/auth/principal.js";
import { webhookProblems } from "../../runtime/events/webhooks.js";
import type { Hooks } from "../../runtime/hooks.js";
import type { TestDatabase } from "../support/db.js";
import { startReceiver, type Delivery, type Receiver } from "../support/receiver.js";
import { runNode, type RunResult } from "../support/run.js";
import { compileFile } from "../support/service.js";
import { openStream, serveService, type Received, type Served, type Stream } from "../support/sse.js";
import { until } from "../support/until.js";
import { accessDatabase, accessKinds } from "./support.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURE = path.join(import.meta.dirname, "fixtures/matrix.resource");
const { schema, service, ddl } = await compileFile(FIXTURE);

/** The HS256 secret the schema's `secret_env` names, given to the mount as its environment. */
const SECRET_ENV = "STUDIO_JWT_SECRET";
const SECRET = "the studio's token secret, longer than the 32 bytes HS256 needs";
const WEBHOOK_SECRET = "whsec_" + Buffer.from("the access matrix's webhook secret").toString("base64");

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";

type Role = "viewer" | "member" | "admin";

/** One caller: a role in a tenant, its subject, and the token an identity provider would issue it. */
interface Who {
  name: string;
  role: Role;
  tenant: string;
  sub: string;
  token: string;
}

/** A token as the identity provider issues it: the schema's issuer and audience, an hour to live. */
function mint(payload: Record<string, unknown>, secret = SECRET): Promise<string> {
  return new SignJWT({ iss: "studio-idp", aud: "studio", ...payload })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(new TextEncoder().encode(secret));
}

async function caller(name: string, role: Role, tenant: string, sub: string): Promise<Who> {
  return { name, role, tenant, sub, token: await mint({ sub, role, tenant }) };
}

/** Three roles by two tenants. */
const CALLERS: Who[] = [
  await caller("viewer A", "viewer", A, "vic"),
  await caller("viewer B", "viewer", B, "val"),
  await caller("member A", "member", A, "ann"),
  await caller("member B", "member", B, "bob"),
  await caller("admin A", "admin", A, "ada"),
  await caller("admin B", "admin", B, "abe"),
];
const by = (name: string): Who => CALLERS.find((w) => w.name === name)!;
const memberA = by("member A");
const memberB = by("member B");
const viewerB = by("viewer B");
const adminA = by("admin A");

/** The principal the built-in verification makes of `who`'s token, for a webhook subscription. */
const principalOf = (who: Who): Principal => ({
  subject: who.sub,
  roles: [who.role],
  claims: { sub: who.sub, tenant: who.tenant },
});

type Table = "tenants" | "labels" | "projects" | "project_labels";

/** Each table's key as the oracle writes it (text), and as the service answers it. */
const KEY_SQL: Record<Table, string> = {
  tenants: "t.id::text",
  labels: "t.code",
  projects: "t.id::text",
  project_labels: "t.project_id || '/' || t.label_code",
};
const keyOf = (table: Table, row: Record<string, unknown>): string =>
  table === "project_labels"
    ? `${String(row.project_id)}/${String(row.label_code)}`
    : String(table === "labels" ? row.code : row.id);

/**
 * The rules of the schema, written again in SQL over the row `t` and the caller `who` (tenant, sub):
 * what each role may read, and (projects) what it may update, delete or advance.
 */
const OWN_TENANT: Record<Table, string> = {
  tenants: "t.id = who.tenant",
  labels: "t.tenant_id = who.tenant",
  projects: "t.tenant_id = who.tenant AND t.deleted_at IS NULL",
  project_labels: "EXISTS (SELECT 1 FROM projects p WHERE p.id = t.project_id AND p.tenant_id = who.tenant)",
};
const READ_RULE: Record<Role, Record<Table, string>> = {
  viewer: OWN_TENANT,
  member: OWN_TENANT,
  admin: { tenants: "TRUE", labels: "TRUE", projects: "t.deleted_at IS NULL", project_labels: "TRUE" },
};
const WRITE_RULE: Record<Role, string> = {
  viewer: "FALSE",
  member: "t.tenant_id = who.tenant AND t.owner = who.sub AND t.deleted_at IS NULL",
  admin: "t.deleted_at IS NULL",
};

/** A project as the service serves it, from the database. */
type Row = Record<string, unknown>;

/** The columns a role does not get. */
const HIDDEN: Record<Role, Partial<Record<Table, string[]>>> = {
  viewer: { projects: ["budget"] },
  member: {},
  admin: {},
};

/** `row` of `table` as `who` may see it: without the columns its role hides. */
function seenBy(who: Who, table: Table, row: Row): Row {
  const out = { ...row };
  for (const c of HIDDEN[who.role][table] ?? []) delete out[c];
  return out;
}

/** Messages of a stream as (event, data) pairs. */
const pairs = (messages: readonly Received[]): [string, unknown][] => messages.map((m) => [m.event, m.data]);

/**
 * A main running many command lines, one after the other, each as a binary's main would (as
 * test/values/matrix.test.ts runs its batches): `batch.ts <commands.json> <results.json>`.
 */
const CLI_BATCH = `import { readFileSync, writeFileSync } from "node:fs";
import { buildCommandTree } from "./commands/index.js";
const [commandsFile, resultsFile] = process.argv.slice(2);
const tree = buildCommandTree();
const results = [];
for (const argv of JSON.parse(readFileSync(commandsFile, "utf8"))) {
  const printed = { code: 0, stdout: "", stderr: "" };
  const writes = [process.stdout.write, process.stderr.write];
  process.stdout.write = (chunk) => ((printed.stdout += chunk), true);
  process.stderr.write = (chunk) => ((printed.stderr += chunk), true);
  try {
    await tree.run(argv);
  } catch (e) {
    printed.code = e?.oclif?.exit ?? 1;
    if (e?.code !== "EEXIT") printed.stderr += String(e?.message ?? e);
  } finally {
    [process.stdout.write, process.stderr.write] = writes;
  }
  results.push(printed);
}
writeFileSync(resultsFile, JSON.stringify(results));
process.exitCode = 0;
`;

/** The typed client and the command tree of the schema, emitted inside the repository so the tree finds @oclif/core. */
const generated = mkdtempSync(path.join(ROOT, "test", ".generated-access-matrix-"));
for (const f of [
  ...(await emitClient(schema, "client", service)),
  ...(await emitCommandTree(schema, "commands", { cliName: "studio", clientDir: "client", service })),
]) {
  mkdirSync(path.dirname(path.join(generated, f.path)), { recursive: true });
  writeFileSync(path.join(generated, f.path), f.contents);
}
writeFileSync(path.join(generated, "batch.ts"), CLI_BATCH);
afterAll(() => rmSync(generated, { recursive: true, force: true }));

/** What the cells call on the generated client (typed per table there; loosely here, since members send partial bodies). */
interface ClientProjects {
  list(query: object): Promise<{ items: Row[] }>;
  get(id: number, query?: object): Promise<Row>;
  create(body: object): Promise<Row>;
  update(id: number, body: object): Promise<Row>;
}
interface GeneratedClient {
  projects: ClientProjects;
  credential(): Promise<string | undefined>;
}
interface ClientModule {
  Client: new (options: { baseURL: string; token?: string | (() => string | Promise<string>) }) => GeneratedClient;
  ProblemError: new (...args: never[]) => Error & { status: number; problem: { type: string } };
}

/** The seeded tenants, labels, projects and links; ids of projects are 1 to 7 in this order. */
const SEED = `
INSERT INTO tenants (id, name) VALUES ('${A}', 'Acme'), ('${B}', 'Bolt');
INSERT INTO labels (code, tenant_id, title) VALUES
  ('la1', '${A}', 'urgent'), ('la2', '${A}', 'later'), ('lb1', '${B}', 'urgent'), ('lb2', '${B}', 'maybe');
INSERT INTO projects (tenant_id, "Project Code", owner, title, stage, budget, parent_id, label_code, deleted_at) VALUES
  ('${A}', 'A-1', 'ann', 'alpha',   'draft',  100, NULL, 'la1', NULL),
  ('${A}', 'A-2', 'art', 'beta',    'active', 200, 1,    NULL,  NULL),
  ('${A}', 'A-3', 'ann', 'gamma',   'done',   300, NULL, NULL,  now()),
  ('${B}', 'B-1', 'bob', 'delta',   'draft',  400, NULL, 'lb1', NULL),
  ('${B}', 'B-2', 'bea', 'epsilon', 'active', 500, 4,    NULL,  NULL),
  ('${A}', 'A-4', 'ann', 'zeta',    'active', 600, 4,    'lb1', NULL),
  ('${B}', 'B-3', 'bob', 'eta',     'done',   700, 3,    NULL,  NULL);
INSERT INTO project_labels (project_id, label_code, note) VALUES
  (1, 'la1', 'first'), (1, 'la2', NULL), (2, 'la2', NULL), (4, 'lb1', NULL), (5, 'lb1', NULL), (6, 'lb1', 'across');
`;

/** The order a project's stage advances in. */
const NEXT_STAGE: Record<string, string> = { draft: "active", active: "done", done: "draft" };

const kinds = await accessKinds();

describe.each(kinds)("the access matrix on %s", (kind) => {
  let db: TestDatabase;
  let served: Served;
  let memberHook: Receiver;
  let viewerHook: Receiver;
  let client: ClientModule;
  /** Each run of the action's implementation: who ran it and the locked row it was given. */
  const advanced: { sub: string | undefined; row: Row }[] = [];
  const streams: Stream[] = [];
  let prefixes = 0;
  /** A prefix no other cell of this kind uses, for the codes of the rows a cell makes. */
  const prefix = (what: string): string => `${what}${++prefixes}`;

  const hooks: Hooks = {
    actions: {
      projects: {
        advance: async (ctx) => {
          advanced.push({ sub: ctx.principal?.subject, row: ctx.row! });
          await ctx.update!({ stage: NEXT_STAGE[String(ctx.row!.stage)]! });
        },
      },
    },
  };

  interface Answer {
    status: number;
    headers: Headers;
    text: string;
    body: any;
  }
  /** `method path` as `who` (a bearer token; none for undefined), `body` as JSON. */
  const send = async (
    who: Who | string | undefined,
    method: string,
    p: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const token = typeof who === "string" ? who : who?.token;
    const r = await fetch(served.url + p, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: r.status, headers: r.headers, text, body: parsed };
  };
  const sql = async (text: string, values: (string | null)[] = []): Promise<Record<string, string | null>[]> =>
    (await db.executor.query({ text, values })).rows;

  /**
   * The oracle: the keys of `table`'s rows `who` may reach, by its role's rule written in SQL (`read`, or
   * for projects `write`: update, delete and the action), narrowed by `where` (SQL over `t`, its values from $3).
   */
  const oracle = async (
    who: Who,
    table: Table,
    where = "TRUE",
    values: string[] = [],
    rule: "read" | "write" = "read",
  ): Promise<string[]> => {
    const condition = rule === "read" ? READ_RULE[who.role][table] : WRITE_RULE[who.role];
    const rows = await sql(
      `WITH who AS (SELECT $1::uuid AS tenant, $2::text AS sub)
       SELECT ${KEY_SQL[table]} AS k FROM ${table} t, who WHERE (${condition}) AND (${where})`,
      [who.tenant, who.sub, ...values],
    );
    return rows.map((r) => r.k!).sort();
  };
  const keys = (table: Table, rows: readonly Row[]): string[] => rows.map((r) => keyOf(table, r)).sort();

  /** Every row of `table` as the service serves it (every column no rule hides), by key, read from the database. */
  const stored = async (table: Table): Promise<Map<string, Row>> => {
    const text: Record<Table, string> = {
      tenants: "SELECT id::text AS id, name FROM tenants",
      labels: "SELECT code, tenant_id::text AS tenant_id, title FROM labels",
      projects: `SELECT id::text AS id, tenant_id::text AS tenant_id, "Project Code" AS code, owner, title,
                 stage::text AS stage, budget::text AS budget, parent_id::text AS parent_id, label_code FROM projects`,
      project_labels: "SELECT project_id::text AS project_id, label_code, note FROM project_labels",
    };
    const out = new Map<string, Row>();
    for (const r of await sql(text[table])) {
      const row: Row = { ...r };
      for (const c of ["id", "budget", "parent_id", "project_id"])
        if (c in row && !(table === "tenants" && c === "id")) row[c] = row[c] === null ? null : Number(row[c]);
      out.set(keyOf(table, row), row);
    }
    return out;
  };
  /** The stored project `id` as `who` sees it. */
  const project = async (who: Who, id: number): Promise<Row> =>
    seenBy(who, "projects", (await stored("projects")).get(String(id))!);

  /** Projects made for one cell, straight in the database: per tenant, one of its member's, one of another owner's, one soft-deleted. */
  const seedProjects = async (p: string): Promise<number[]> => {
    const rows = await sql(
      `INSERT INTO projects (tenant_id, "Project Code", owner, title, stage, budget, deleted_at) VALUES
        ($1::uuid, $3 || '-1', 'ann', $3, 'draft', 1, NULL), ($1::uuid, $3 || '-2', 'art', $3, 'draft', 2, NULL),
        ($1::uuid, $3 || '-3', 'ann', $3, 'draft', 3, now()), ($2::uuid, $3 || '-4', 'bob', $3, 'draft', 4, NULL),
        ($2::uuid, $3 || '-5', 'bea', $3, 'draft', 5, NULL), ($2::uuid, $3 || '-6', 'bob', $3, 'draft', 6, now())
       RETURNING id`,
      [A, B, p],
    );
    return rows.map((r) => Number(r.id));
  };
  const count = async (table: Table): Promise<number> =>
    Number((await sql(`SELECT count(*)::text AS n FROM ${table}`))[0]!.n);

  beforeAll(async () => {
    db = await accessDatabase(kind, "access-matrix");
    await db.executor.script(ddl);
    await db.executor.script(SEED);
    memberHook = await startReceiver();
    viewerHook = await startReceiver();
    served = await serveService(service, {
      db: db.executor,
      hooks,
      auth: { env: { [SECRET_ENV]: SECRET } },
      events: { pollMs: 100, heartbeatMs: 1000 },
      webhooks: {
        subscriptions: [
          {
            name: "member-a",
            table: "projects",
            url: memberHook.url,
            secret: WEBHOOK_SECRET,
            principal: principalOf(memberA),
          },
          {
            name: "viewer-b",
            table: "projects",
            url: viewerHook.url,
            secret: WEBHOOK_SECRET,
            principal: principalOf(viewerB),
          },
        ],
        pollMs: 100,
        retryBaseMs: 50,
      },
    });
    client = (await import(pathToFileURL(path.join(generated, "client/index.ts")).href)) as ClientModule;
  }, 60_000);
  afterAll(async () => {
    for (const s of streams) s.close();
    await served?.close();
    await memberHook?.close();
    await viewerHook?.close();
    await db?.drop();
  });

  it("no token, or a token the service did not issue, is a 401 on every surface", async () => {
    const forged = await mint({ sub: "ann", role: "admin", tenant: A }, "x".repeat(64));
    for (const token of [undefined, forged]) {
      for (const [method, p, body] of [
        ["GET", "/projects"],
        ["GET", "/projects/1"],
        ["GET", "/tenants?expand=projects"],
        ["POST", "/projects", { code: "nobody", title: "x" }],
        ["PATCH", "/projects/1", { title: "x" }],
        ["PATCH", "/projects?owner=eq.ann", { title: "x" }],
        ["DELETE", "/projects/1"],
        ["POST", "/projects/1/advance", {}],
        ["POST", "/project_labels", { project_id: 1, label_code: "la2" }],
      ] as [string, string, unknown?][]) {
        const r = await send(token, method, p, body);
        expect(r.status, `${method} ${p} ${token ? "forged" : "no token"}`).toBe(401);
        expect(r.headers.get("www-authenticate")).toMatch(/^Bearer realm="Studio"/);
      }
      const feed = await openStream(`${served.url}/projects/events`, token ? { authorization: `Bearer ${token}` } : {});
      expect(feed.status).toBe(401);
    }
    expect((await sql("SELECT title FROM projects WHERE id = 1"))[0]!.title).toBe("alpha");
  });

  it("list with a filter × role × tenant: exactly the oracle's rows, each as stored less what the role hides", async () => {
    const lists: [Table, string, string, string[]][] = [
      ["projects", "stage=in.(draft,active)", "t.stage IN ('draft', 'active')", []],
      ["projects", "code=startswith.A-", `starts_with(lower(t."Project Code"), 'a-')`, []],
      ["labels", "tenant_id=eq." + B, "t.tenant_id = $3", [B]],
      ["tenants", "", "TRUE", []],
      ["project_labels", "project_id=in.(1,4,6)", "t.project_id IN (1, 4, 6)", []],
    ];
    for (const [table, query, where, values] of lists) {
      const rows = await stored(table);
      for (const who of CALLERS) {
        const r = await send(who, "GET", `/${table}?${query}&count=exact&per_page=100`);
        const cell = `${table}?${query} × ${who.name}`;
        expect(r.status, `${cell}: ${r.text}`).toBe(200);
        const reach = await oracle(who, table, where, values);
        expect(keys(table, r.body.items), cell).toEqual(reach);
        // The total counts the caller's rows too, not every row the filter matches.
        expect(r.body.total, cell).toBe(reach.length);
        for (const item of r.body.items as Row[])
          expect(item, cell).toEqual(seenBy(who, table, rows.get(keyOf(table, item))!));
      }
    }
  });

  it("read × role × tenant: every key of every table, 200 as stored when the oracle has it, else 404", async () => {
    const cases: [Table, string[]][] = [
      ["projects", ["1", "2", "3", "4", "5", "6", "7", "999"]],
      ["labels", ["la1", "la2", "lb1", "lb2", "none"]],
      ["tenants", [A, B, "00000000-0000-4000-8000-0000000000cc"]],
    ];
    for (const [table, ids] of cases) {
      const rows = await stored(table);
      for (const who of CALLERS) {
        const reach = await oracle(who, table);
        // Out of reach reads as never there: the very answer of a key no row has.
        const missing = await send(who, "GET", `/${table}/${ids.at(-1)}`);
        expect(missing.status).toBe(404);
        for (const id of ids) {
          const r = await send(who, "GET", `/${table}/${id}`);
          const cell = `${table}/${id} × ${who.name}`;
          if (reach.includes(id)) {
            expect(r.status, cell).toBe(200);
            expect(r.body, cell).toEqual(seenBy(who, table, rows.get(id)!));
          } else {
            expect(r.status, `${cell}: ${r.text}`).toBe(404);
            expect(r.text, cell).toBe(missing.text);
          }
        }
      }
    }
  });

  it("expand forward × role × tenant: a reference out of reach (another tenant's, soft-deleted) reads as null", async () => {
    for (const who of CALLERS) {
      const projects = await stored("projects");
      const labels = await stored("labels");
      const tenants = await stored("tenants");
      const [readable, labelsSeen, tenantsSeen] = [
        await oracle(who, "projects"),
        await oracle(who, "labels"),
        await oracle(who, "tenants"),
      ];
      const r = await send(who, "GET", "/projects?expand=tenant,parent,label&per_page=100");
      expect(r.status, r.text).toBe(200);
      expect(keys("projects", r.body.items)).toEqual(readable);
      for (const item of r.body.items as Row[]) {
        const row = projects.get(String(item.id))!;
        const cell = `project ${String(item.id)} × ${who.name}`;
        const parent = row.parent_id === null ? undefined : String(row.parent_id);
        expect(item.parent, `${cell}: parent`).toEqual(
          parent !== undefined && readable.includes(parent) ? seenBy(who, "projects", projects.get(parent)!) : null,
        );
        const label = row.label_code as string | null;
        expect(item.label, `${cell}: label`).toEqual(
          label !== null && labelsSeen.includes(label) ? labels.get(label) : null,
        );
        const tenant = row.tenant_id as string;
        expect(item.tenant, `${cell}: tenant`).toEqual(tenantsSeen.includes(tenant) ? tenants.get(tenant) : null);
      }
      // Through the composite-key link table, both of its references.
      const links = await send(who, "GET", "/project_labels?expand=project,label");
      expect(links.status, links.text).toBe(200);
      expect(keys("project_labels", links.body.items)).toEqual(await oracle(who, "project_labels"));
      for (const item of links.body.items as Row[]) {
        const p = String(item.project_id);
        expect(item.project, `link ${p} × ${who.name}`).toEqual(
          readable.includes(p) ? seenBy(who, "projects", projects.get(p)!) : null,
        );
        const l = String(item.label_code);
        expect(item.label, `link ${l} × ${who.name}`).toEqual(labelsSeen.includes(l) ? labels.get(l) : null);
      }
      // A read by key expands the same way.
      const one = await send(who, "GET", "/projects/6?expand=parent,label");
      if (readable.includes("6")) {
        expect(one.body.parent).toEqual(readable.includes("4") ? seenBy(who, "projects", projects.get("4")!) : null);
        expect(one.body.label).toEqual(labelsSeen.includes("lb1") ? labels.get("lb1") : null);
      } else expect(one.status).toBe(404);
    }
  });

  it("expand inverse × role × tenant: each collection holds exactly the oracle's rows", async () => {
    for (const who of CALLERS) {
      const projects = await stored("projects");
      const links = await stored("project_labels");
      const tenants = await send(who, "GET", "/tenants?expand=projects");
      expect(tenants.status, tenants.text).toBe(200);
      expect(keys("tenants", tenants.body.items)).toEqual(await oracle(who, "tenants"));
      for (const t of tenants.body.items as { id: string; projects: { items: Row[] } }[]) {
        const cell = `tenant ${t.id} × ${who.name}`;
        expect(keys("projects", t.projects.items), cell).toEqual(
          await oracle(who, "projects", "t.tenant_id = $3", [t.id]),
        );
        for (const item of t.projects.items)
          expect(item, cell).toEqual(seenBy(who, "projects", projects.get(String(item.id))!));
      }
      const tagged = await send(who, "GET", "/projects?expand=tags&per_page=100");
      expect(tagged.status, tagged.text).toBe(200);
      for (const p of tagged.body.items as { id: number; tags: { items: Row[] } }[]) {
        const cell = `project ${p.id} tags × ${who.name}`;
        expect(keys("project_labels", p.tags.items), cell).toEqual(
          await oracle(who, "project_labels", "t.project_id = $3::bigint", [String(p.id)]),
        );
        for (const item of p.tags.items) expect(item, cell).toEqual(links.get(keyOf("project_labels", item)));
      }
    }
  });

  it("hidden columns: never served, filtered, sorted, selected or expanded for the role hiding them; the 400's allowed lists leave them out", async () => {
    const viewer = by("viewer A");
    for (const [p, location] of [
      ["/projects?budget=gt.0", "query.budget"],
      ["/projects?sort=budget", "query.sort"],
      ["/projects?select=id,budget", "query.select"],
      [
        "/projects?filter=" + encodeURIComponent(JSON.stringify({ field: "budget", op: "gt", value: 0 })),
        "query.filter",
      ],
    ] as [string, string | undefined][]) {
      const r = await send(viewer, "GET", p);
      expect(r.status, `${p}: ${r.text}`).toBe(400);
      if (location !== undefined)
        expect(
          r.body.errors.map((e: { location: string }) => e.location),
          p,
        ).toContain(location);
      expect(JSON.stringify(r.body.errors.map((e: { allowed?: unknown }) => e.allowed ?? [])), p).not.toContain(
        "budget",
      );
      // The same request of a role that sees the column is answered.
      expect((await send(memberA, "GET", p)).status, `${p} × member A`).not.toBe(400);
    }
    for (const q of ["budget=gt.0", "select=id,budget"]) {
      const feed = await openStream(`${served.url}/projects/events?${q}`, {
        authorization: `Bearer ${viewer.token}`,
      });
      expect(feed.status, q).toBe(400);
      expect(JSON.stringify(feed.body), q).not.toMatch(/"allowed":\[[^\]]*budget/);
      feed.close();
    }
  });

  it("create × role × tenant: viewers are refused, members' tenant and owner are stamped, references must be readable", async () => {
    const p = prefix("c");
    for (const table of ["projects", "labels", "project_labels"] as Table[]) {
      const before = await count(table);
      for (const viewer of [by("viewer A"), viewerB]) {
        const body =
          table === "project_labels" ? { project_id: 1, label_code: "la2" } : { code: `${p}-v`, title: "no" };
        const r = await send(viewer, "POST", `/${table}`, body);
        expect(r.status, `${table} × ${viewer.name}`).toBe(403);
        expect(r.body.type).toBe("/problems/forbidden");
      }
      expect(await count(table), table).toBe(before);
    }
    for (const member of [memberA, memberB]) {
      const made = await send(member, "POST", "/projects", {
        code: `${p}-${member.sub}`,
        title: "mine",
        stage: "active",
      });
      expect(made.status, made.text).toBe(201);
      expect(made.body).toEqual(await project(member, made.body.id));
      expect(made.body).toMatchObject({ tenant_id: member.tenant, owner: member.sub, stage: "active", budget: 0 });
      expect(made.headers.get("location")).toBe(`/projects/${made.body.id}`);
      // A stamped column is not the member's to send; another tenant's parent or label is not there for it.
      const forged = await send(member, "POST", "/projects", {
        code: `${p}-f`,
        title: "x",
        tenant_id: A === member.tenant ? B : A,
      });
      expect(forged.status).toBe(400);
      expect(JSON.stringify(forged.body.errors)).toContain("tenant_id");
      expect((await send(member, "POST", "/projects", { code: `${p}-o`, title: "x", owner: "zed" })).status).toBe(400);
      const foreignParent = member.tenant === A ? 4 : 1;
      const foreignLabel = member.tenant === A ? "lb1" : "la1";
      const refs = await send(member, "POST", "/projects", {
        code: `${p}-r`,
        title: "x",
        parent_id: foreignParent,
        label_code: foreignLabel,
      });
      expect(refs.status, refs.text).toBe(422);
      expect(refs.body.errors.map((e: { location: string }) => e.location).sort()).toEqual([
        "body.label_code",
        "body.parent_id",
      ]);
      // The soft-deleted project 3 is nobody's parent any more.
      expect((await send(member, "POST", "/projects", { code: `${p}-d`, title: "x", parent_id: 3 })).status).toBe(422);
      const label = await send(member, "POST", "/labels", { code: `${p}-${member.sub}`, title: "own" });
      expect(label.status, label.text).toBe(201);
      expect(label.body).toEqual({ code: `${p}-${member.sub}`, tenant_id: member.tenant, title: "own" });
      // The link table (a composite key): only between rows the member may read.
      const link = await send(member, "POST", "/project_labels", {
        project_id: made.body.id,
        label_code: label.body.code,
      });
      expect(link.status, link.text).toBe(201);
      expect(link.headers.get("location")).toBeNull();
      const across = await send(member, "POST", "/project_labels", {
        project_id: foreignParent,
        label_code: label.body.code,
      });
      expect(across.status).toBe(422);
      expect(across.body.errors[0].location).toBe("body.project_id");
    }
    expect(
      await sql(`SELECT count(*)::text AS n FROM projects WHERE "Project Code" IN ($1, $2, $3, $4)`, [
        `${p}-f`,
        `${p}-o`,
        `${p}-r`,
        `${p}-d`,
      ]),
    ).toEqual([{ n: "0" }]);
    // An admin's grant stamps nothing: it places the row in either tenant, its references checked against all it reads.
    for (const admin of [adminA, by("admin B")]) {
      const other = admin.tenant === A ? B : A;
      const r = await send(admin, "POST", "/projects", {
        code: `${p}-${admin.sub}`,
        title: "placed",
        tenant_id: other,
        owner: "zed",
        parent_id: 1,
        budget: 9,
      });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toEqual(await project(admin, r.body.id));
      expect(r.body).toMatchObject({ tenant_id: other, owner: "zed", parent_id: 1, budget: 9 });
      expect(
        (
          await send(admin, "POST", "/projects", {
            code: `${p}-x`,
            title: "x",
            tenant_id: other,
            owner: "zed",
            parent_id: 3,
          })
        ).status,
      ).toBe(422);
    }
  });

  it("bulk create × role × tenant: all rows stamped in one transaction, or none", async () => {
    const p = prefix("b");
    for (const viewer of [by("viewer A"), viewerB])
      expect((await send(viewer, "POST", "/projects", [{ code: `${p}-v`, title: "x" }])).status).toBe(403);
    for (const member of [memberA, memberB]) {
      const before = await count("projects");
      const foreign = member.tenant === A ? 5 : 2;
      const refused = await send(member, "POST", "/projects", [
        { code: `${p}-${member.sub}-1`, title: "one" },
        { code: `${p}-${member.sub}-2`, title: "two", parent_id: foreign },
      ]);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.errors.map((e: { location: string }) => e.location)).toEqual(["body[1].parent_id"]);
      expect(await count("projects")).toBe(before);
      const made = await send(member, "POST", "/projects", [
        { code: `${p}-${member.sub}-1`, title: "one" },
        { code: `${p}-${member.sub}-2`, title: "two", parent_id: member.tenant === A ? 1 : 4 },
      ]);
      expect(made.status, made.text).toBe(201);
      expect(made.body).toEqual([await project(member, made.body[0].id), await project(member, made.body[1].id)]);
      for (const row of made.body) expect(row).toMatchObject({ tenant_id: member.tenant, owner: member.sub });
      const links = await send(member, "POST", "/project_labels", [
        { project_id: made.body[0].id, label_code: member.tenant === A ? "la1" : "lb1" },
        { project_id: made.body[1].id, label_code: member.tenant === A ? "lb1" : "la1" },
      ]);
      expect(links.status).toBe(422);
      expect(links.body.errors.map((e: { location: string }) => e.location)).toEqual(["body[1].label_code"]);
    }
    const admin = await send(adminA, "POST", "/projects", [
      { code: `${p}-ada-1`, title: "a", tenant_id: A, owner: "ann" },
      { code: `${p}-ada-2`, title: "b", tenant_id: B, owner: "bob" },
    ]);
    expect(admin.status, admin.text).toBe(201);
    expect(admin.body.map((r: Row) => r.tenant_id)).toEqual([A, B]);
  });

  it("upsert × role × tenant: a merge on a key of a row out of reach touches nothing; within reach it merges", async () => {
    const p = prefix("u");
    const merge = { prefer: "resolution=merge-duplicates" };
    const ignore = { prefer: "resolution=ignore-duplicates" };
    const ids = await seedProjects(p);
    const snapshot = async (): Promise<Map<string, Row>> => stored("projects");
    for (const who of CALLERS) {
      for (const [i, id] of ids.entries()) {
        const before = await snapshot();
        const code = `${p}-${i + 1}`;
        const body =
          who.role === "admin"
            ? {
                code,
                title: `merged by ${who.sub}`,
                tenant_id: before.get(String(id))!.tenant_id,
                owner: before.get(String(id))!.owner,
              }
            : { code, title: `merged by ${who.sub}` };
        const r = await send(who, "POST", "/projects?on_conflict=code", body, merge);
        const cell = `${code} × ${who.name}`;
        const reach = (await oracle(who, "projects", "TRUE", [], "write")).includes(String(id));
        // A soft-deleted row still holds its code: a merge onto it is refused as out of reach, for the admin too.
        if (who.role === "viewer") expect(r.status, cell).toBe(403);
        else if (reach) {
          expect(r.status, `${cell}: ${r.text}`).toBe(200);
          expect(r.body).toEqual(await project(who, id));
          expect(r.body.title).toBe(`merged by ${who.sub}`);
          continue;
        } else {
          expect(r.status, `${cell}: ${r.text}`).toBe(409);
          // The same answer whoever's row it is, and the one a plain create on the taken key gets: it names
          // the key, never the row nor that the row is out of reach.
          expect(r.body, cell).toMatchObject({
            type: "/problems/conflict",
            detail: "A row with the same unique value already exists.",
            errors: [{ location: "body.code", detail: "this value is already taken" }],
          });
          expect(r.text, cell).not.toContain(`"id"`);
          expect(r.text.toLowerCase(), cell).not.toMatch(/tenant|reach|another/);
          const plain = await send(who, "POST", "/projects", body);
          expect({ status: plain.status, body: plain.body }, cell).toEqual({ status: r.status, body: r.body });
        }
        expect(await snapshot(), `${cell}: nothing written`).toEqual(before);
        if (who.role === "viewer") continue;
        // Ignoring the duplicate leaves it as it is too.
        const ignored = await send(who, "POST", "/projects?on_conflict=code", body, ignore);
        expect(ignored.status, cell).toBe(204);
        expect(await snapshot(), `${cell}: ignored`).toEqual(before);
      }
    }
    // On the text primary key of labels: another tenant's label is out of reach.
    const lb1 = (await stored("labels")).get("lb1");
    const taken = await send(memberA, "POST", "/labels", { code: "lb1", title: "taken over" }, merge);
    expect(taken.status, taken.text).toBe(409);
    expect((await stored("labels")).get("lb1")).toEqual(lb1);
    // A plain create of a key another tenant holds: the unique key reveals that it is taken, nothing more (no
    // value of the stored row, no word of whose it is) (docs/access.md).
    const created = await send(memberA, "POST", "/labels", { code: "lb1", title: "mine" });
    expect(created.status, created.text).toBe(409);
    expect(created.body).toEqual(taken.body);
    expect(created.body).toMatchObject({
      type: "/problems/conflict",
      errors: [{ location: "body.code", detail: "this value is already taken" }],
    });
    for (const word of [B, "urgent", "tenant", "another"]) expect(created.text.toLowerCase()).not.toContain(word);
    expect((await stored("labels")).get("lb1")).toEqual(lb1);
    const own = await send(
      memberA,
      "POST",
      "/labels",
      [
        { code: "la2", title: "later" },
        { code: `${p}-new`, title: "new" },
      ],
      merge,
    );
    expect(own.status, own.text).toBe(200);
    expect(own.body).toEqual([
      { code: "la2", tenant_id: A, title: "later" },
      { code: `${p}-new`, tenant_id: A, title: "new" },
    ]);
  });

  it("update by key × role × tenant: 403 for viewers, 404 out of the write rule, 200 within it; rows left out are untouched", async () => {
    const p = prefix("w");
    const ids = await seedProjects(p);
    const last = new Map<number, string>();
    for (const who of CALLERS) {
      const reach = await oracle(who, "projects", "TRUE", [], "write");
      for (const id of ids) {
        const title = `${p} by ${who.sub}`;
        const r = await send(who, "PATCH", `/projects/${id}`, { title });
        const cell = `${id} × ${who.name}`;
        if (who.role === "viewer") expect(r.status, cell).toBe(403);
        else if (reach.includes(String(id))) {
          expect(r.status, `${cell}: ${r.text}`).toBe(200);
          expect(r.body).toEqual(await project(who, id));
          last.set(id, title);
        } else expect(r.status, `${cell}: ${r.text}`).toBe(404);
      }
    }
    for (const id of ids) expect((await project(adminA, id)).title, String(id)).toBe(last.get(id) ?? p);
    // The columns a member's grant stamps are the server's to set, on an update too: its row cannot leave its rules.
    const own = ids[0]!;
    for (const [column, value] of [
      ["owner", "art"],
      ["tenant_id", B],
    ]) {
      const r = await send(memberA, "PATCH", `/projects/${own}`, { [column!]: value });
      expect(r.status, r.text).toBe(400);
      expect(r.body.errors[0].location).toBe(`body.${column}`);
    }
    expect(await project(adminA, own)).toMatchObject({ owner: "ann", tenant_id: A });
    // The admin may move it.
    expect((await send(adminA, "PATCH", `/projects/${own}`, { tenant_id: B })).status).toBe(200);
    expect((await send(memberA, "GET", `/projects/${own}`)).status).toBe(404);
  });

  it("filtered update and delete with Prefer: max-affected × role × tenant: the bound counts the caller's rows only", async () => {
    for (const who of CALLERS) {
      const p = prefix("f");
      const ids = await seedProjects(p);
      // Every caller's filter names six rows; only the oracle's are the caller's.
      const filter = `/projects?code=startswith.${p}-`;
      const reach = await oracle(
        who,
        "projects",
        `starts_with(lower(t."Project Code"), lower($3))`,
        [`${p}-`],
        "write",
      );
      const before = await stored("projects");
      if (who.role === "viewer") {
        expect((await send(who, "PATCH", filter, { title: "x" }, { prefer: "max-affected=6" })).status).toBe(403);
        expect((await send(who, "DELETE", filter, undefined, { prefer: "max-affected=6" })).status).toBe(403);
        expect(await stored("projects")).toEqual(before);
        continue;
      }
      if (reach.length > 0) {
        const over = await send(
          who,
          "PATCH",
          filter,
          { title: "over" },
          { prefer: `max-affected=${reach.length - 1}` },
        );
        expect(over.status, over.text).toBe(400);
        expect(over.body.type).toBe("/problems/max-affected");
        expect(await stored("projects"), `${who.name}: nothing written`).toEqual(before);
      }
      const r = await send(
        who,
        "PATCH",
        filter,
        { title: `${p} by ${who.sub}` },
        { prefer: `max-affected=${reach.length}` },
      );
      expect(r.status, `${who.name}: ${r.text}`).toBe(200);
      expect(keys("projects", r.body), who.name).toEqual(reach);
      for (const row of r.body as Row[]) expect(row).toEqual(await project(who, row.id as number));
      const after = await stored("projects");
      for (const id of ids)
        expect(after.get(String(id))!.title, `${id} × ${who.name}`).toBe(
          reach.includes(String(id)) ? `${p} by ${who.sub}` : p,
        );
      const removed = await send(who, "DELETE", filter, undefined, { prefer: `max-affected=${reach.length}` });
      expect(removed.status, removed.text).toBe(200);
      expect(keys("projects", removed.body)).toEqual(reach);
      expect(removed.body.every((k: Row) => Object.keys(k).join() === "id")).toBe(true);
      const marked = await sql(
        `SELECT id::text AS id FROM projects WHERE starts_with("Project Code", $1) AND deleted_at IS NOT NULL`,
        [`${p}-`],
      );
      const seededDeleted = [ids[2]!, ids[5]!].map(String);
      expect(marked.map((m) => m.id).sort()).toEqual([...reach, ...seededDeleted].sort());
      expect(ids.map(String).filter((id) => !reach.includes(id) && !seededDeleted.includes(id)).length).toBe(
        6 - 2 - reach.length,
      );
    }
  });

  it("delete by key × role × tenant: 403 for viewers, 404 out of the rule (and once deleted), 204 within it, marking the row", async () => {
    const p = prefix("d");
    const ids = await seedProjects(p);
    for (const who of CALLERS) {
      for (const id of ids) {
        const reach = (await oracle(who, "projects", "TRUE", [], "write")).includes(String(id));
        const r = await send(who, "DELETE", `/projects/${id}`);
        const cell = `${id} × ${who.name}`;
        if (who.role === "viewer") expect(r.status, cell).toBe(403);
        else expect(r.status, `${cell}: ${r.text}`).toBe(reach ? 204 : 404);
      }
    }
    // Everything ends up marked: the members' own rows by them, the rest by the admins, none removed.
    expect(
      await sql(
        `SELECT count(*)::text AS n FROM projects WHERE starts_with("Project Code", $1) AND deleted_at IS NULL`,
        [`${p}-`],
      ),
    ).toEqual([{ n: "0" }]);
    expect(
      await sql(`SELECT count(*)::text AS n FROM projects WHERE starts_with("Project Code", $1)`, [`${p}-`]),
    ).toEqual([{ n: "6" }]);
    for (const who of CALLERS) expect((await send(who, "GET", `/projects/${ids[0]}`)).status).toBe(404);
  });

  it("the action × role × tenant: its row locked under the rule (404 out of it, the implementation never run), 403 for viewers", async () => {
    const p = prefix("a");
    const ids = await seedProjects(p);
    for (const who of CALLERS) {
      for (const id of ids) {
        const reach = (await oracle(who, "projects", "TRUE", [], "write")).includes(String(id));
        const runs = advanced.length;
        const before = who.role === "viewer" ? undefined : await project(who, id);
        const r = await send(who, "POST", `/projects/${id}/advance`, {});
        const cell = `${id} × ${who.name}`;
        if (who.role === "viewer") expect(r.status, cell).toBe(403);
        else if (reach) {
          expect(r.status, `${cell}: ${r.text}`).toBe(200);
          expect(advanced.slice(runs), cell).toEqual([{ sub: who.sub, row: before }]);
          expect(r.body).toEqual({ ...before, stage: NEXT_STAGE[before!.stage as string] });
          expect(r.body).toEqual(await project(who, id));
          expect(r.headers.get("etag")).toMatch(/^"/);
          continue;
        } else expect(r.status, `${cell}: ${r.text}`).toBe(404);
        expect(advanced.length, `${cell}: not run`).toBe(runs);
      }
    }
  });

  it("conditional requests: If-Match is weighed only within reach; out of reach is a 404 whatever the tag", async () => {
    const p = prefix("e");
    const [own, , , foreign] = await seedProjects(p);
    const mine = await send(memberA, "GET", `/projects/${own}`);
    const tag = mine.headers.get("etag")!;
    expect(tag).toMatch(/^"/);
    const changed = await send(memberA, "PATCH", `/projects/${own}`, { title: "tagged" }, { "if-match": tag });
    expect(changed.status, changed.text).toBe(200);
    expect((await send(memberA, "PATCH", `/projects/${own}`, { title: "stale" }, { "if-match": tag })).status).toBe(
      412,
    );
    expect((await send(memberA, "DELETE", `/projects/${own}`, undefined, { "if-match": tag })).status).toBe(412);
    expect((await send(memberA, "POST", `/projects/${own}/advance`, {}, { "if-match": tag })).status).toBe(412);
    // Another tenant's row, with its true tag (read by an admin) or a stale one: not there for member A.
    const theirs = (await send(adminA, "GET", `/projects/${foreign}`)).headers.get("etag")!;
    for (const t of [theirs, tag, "*"]) {
      expect((await send(memberA, "PATCH", `/projects/${foreign}`, { title: "x" }, { "if-match": t })).status, t).toBe(
        404,
      );
      expect((await send(memberA, "DELETE", `/projects/${foreign}`, undefined, { "if-match": t })).status, t).toBe(404);
      expect((await send(memberA, "POST", `/projects/${foreign}/advance`, {}, { "if-match": t })).status, t).toBe(404);
    }
    expect(
      (await send(by("viewer B"), "PATCH", `/projects/${foreign}`, { title: "x" }, { "if-match": theirs })).status,
    ).toBe(403);
    expect((await project(adminA, foreign!)).title).toBe(p);
    // A viewer's tag is of what it sees: a change of the hidden budget alone leaves it as it was.
    const seen = (await send(by("viewer B"), "GET", `/projects/${foreign}`)).headers.get("etag");
    expect((await send(adminA, "PATCH", `/projects/${foreign}`, { budget: 77 })).status).toBe(200);
    expect((await send(by("viewer B"), "GET", `/projects/${foreign}`)).headers.get("etag")).toBe(seen);
    expect((await send(memberB, "GET", `/projects/${foreign}`)).headers.get("etag")).not.toBe(theirs);
  });

  it("idempotent replays: the same caller gets the stored answer; any other caller (another subject, tenant or role) does not", async () => {
    const p = prefix("i");
    const key = { "idempotency-key": `${p}-key` };
    const body = { code: `${p}-1`, title: "keyed" };
    const first = await send(memberA, "POST", "/projects", body, key);
    expect(first.status, first.text).toBe(201);
    const replay = await send(memberA, "POST", "/projects", body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    expect(await oracle(adminA, "projects", `t."Project Code" = $3`, [body.code])).toEqual([String(first.body.id)]);
    // Another tenant's member sending the same key and body: its own create, in its own tenant (the code is taken: 409).
    const other = await send(memberB, "POST", "/projects", { ...body, code: `${p}-2` }, key);
    expect(other.status, other.text).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(other.body).toMatchObject({ tenant_id: B, owner: "bob" });
    // The same subject with a token for the other tenant, or for a role not granted create: never the stored answer.
    const elsewhere = await caller("ann in B", "member", B, "ann");
    const moved = await send(elsewhere, "POST", "/projects", body, key);
    expect(moved.headers.get("idempotent-replayed"), moved.text).toBeNull();
    expect(moved.status, moved.text).toBe(409);
    expect(moved.text).not.toContain(String(first.body.id));
    const demoted = await caller("ann as viewer", "viewer", A, "ann");
    const refused = await send(demoted, "POST", "/projects", body, key);
    expect(refused.headers.get("idempotent-replayed")).toBeNull();
    expect(refused.status, refused.text).toBe(403);
    // An admin's keyed create, replayed to a viewer of the same subject, would show it the budget.
    const keyed = { "idempotency-key": `${p}-admin` };
    const placed = { code: `${p}-3`, title: "keyed", tenant_id: A, owner: "ann", budget: 31 };
    const rooted = await caller("ann as admin", "admin", A, "ann");
    expect((await send(rooted, "POST", "/projects", placed, keyed)).status).toBe(201);
    const peek = await send(demoted, "POST", "/projects", placed, keyed);
    expect(peek.status).toBe(403);
    expect(peek.text).not.toContain("31");
  });

  it("the change feed × role × tenant: each subscriber gets exactly its rows' changes, a leave when a row leaves its view, a delete when it is marked, never a hidden column", async () => {
    const p = prefix("s");
    const opened = new Map<Who, Stream>();
    for (const who of CALLERS) {
      const s = await openStream(`${served.url}/projects/events`, { authorization: `Bearer ${who.token}` });
      streams.push(s);
      expect(s.status, who.name).toBe(200);
      opened.set(who, s);
    }
    await new Promise((r) => setTimeout(r, 400));
    const expected = new Map<Who, [string, unknown][]>(CALLERS.map((w) => [w, []]));
    /** Runs `write` on project `id` (undefined: the row it creates), and adds the events the oracle says each caller must get. */
    const step = async (id: number | undefined, write: () => Promise<number>): Promise<number> => {
      const seenBefore = new Map<Who, boolean>();
      for (const who of CALLERS)
        seenBefore.set(who, id !== undefined && (await oracle(who, "projects")).includes(String(id)));
      const old = id === undefined ? undefined : (await stored("projects")).get(String(id));
      const at = await write();
      const row = (await stored("projects")).get(String(at));
      // A row DELETE marked (its soft-delete column set) is deleted for every subscriber, as one removed is.
      const marked =
        row !== undefined &&
        (await sql("SELECT 1 FROM projects WHERE id = $1 AND deleted_at IS NOT NULL", [String(at)])).length > 0;
      for (const who of CALLERS) {
        const after = row !== undefined && (await oracle(who, "projects")).includes(String(at));
        const out = expected.get(who)!;
        const now = row && seenBy(who, "projects", row);
        // An update that changed nothing the caller receives sends it nothing (decision 1337).
        const unchanged =
          seenBefore.get(who) &&
          old !== undefined &&
          JSON.stringify(seenBy(who, "projects", old)) === JSON.stringify(now);
        if (after && !unchanged) out.push([id === undefined ? "create" : "update", now]);
        else if (!after && seenBefore.get(who))
          out.push([row === undefined || marked ? "delete" : "leave", { id: at }]);
      }
      return at;
    };
    const write = async (method: string, path: string, body?: unknown): Promise<number> => {
      const r = await send(adminA, method, path, body);
      expect(r.status, r.text).toBeLessThan(300);
      return r.status === 204 ? Number(path.split("/")[2]) : (r.body.id as number);
    };
    // A stream may begin with changes committed just before it was placed: each one's own part starts at a start marker.
    const startA = await step(undefined, () =>
      write("POST", "/projects", { code: `${p}-sA`, title: "start", tenant_id: A, owner: "ann" }),
    );
    const startB = await step(undefined, () =>
      write("POST", "/projects", { code: `${p}-sB`, title: "start", tenant_id: B, owner: "bob" }),
    );
    const one = await step(undefined, () =>
      write("POST", "/projects", { code: `${p}-1`, title: "one", tenant_id: A, owner: "ann", budget: 11 }),
    );
    const two = await step(undefined, () =>
      write("POST", "/projects", { code: `${p}-2`, title: "two", tenant_id: B, owner: "bob", budget: 12 }),
    );
    await step(one, () => write("PATCH", `/projects/${one}`, { title: "one again" }));
    await step(one, () => write("PATCH", `/projects/${one}`, { tenant_id: B }));
    await step(two, () => write("PATCH", `/projects/${two}`, { budget: 22 }));
    await step(two, () => write("DELETE", `/projects/${two}`));
    // A change made by anyone else (here, plain SQL) is judged the same way.
    await step(one, async () => {
      await sql("DELETE FROM projects WHERE id = $1", [String(one)]);
      return one;
    });
    const markerA = await step(undefined, () =>
      write("POST", "/projects", { code: `${p}-mA`, title: "end", tenant_id: A, owner: "ann" }),
    );
    const markerB = await step(undefined, () =>
      write("POST", "/projects", { code: `${p}-mB`, title: "end", tenant_id: B, owner: "bob" }),
    );
    for (const who of CALLERS) {
      const s = opened.get(who)!;
      const last = who.role === "admin" ? markerB : who.tenant === A ? markerA : markerB;
      await until(`${who.name}'s feed to reach its last marker`, () =>
        s.messages.some((m) => (m.data as Row).id === last),
      ).catch((e: Error) => {
        throw new Error(`${e.message}; got ${JSON.stringify(pairs(s.messages))}`);
      });
      const from = s.messages.findIndex((m) => [startA, startB].includes((m.data as Row).id as number));
      expect(pairs(s.messages.slice(from)), who.name).toEqual(expected.get(who));
      // Whatever came before the start markers, none of it was another tenant's, or carried a hidden column.
      for (const m of s.messages) {
        const data = m.data as Row;
        if (m.event === "create" || m.event === "update") {
          if (who.role !== "admin") expect(data.tenant_id, `${who.name}: ${JSON.stringify(m)}`).toBe(who.tenant);
          if (who.role === "viewer") expect(data).not.toHaveProperty("budget");
          else expect(data).toHaveProperty("budget");
        } else expect(Object.keys(data), JSON.stringify(m)).toEqual(["id"]);
      }
      s.close();
    }
    // The webhooks of member A and viewer B got what those callers' feeds got, and nothing of another tenant ever.
    for (const [hook, who] of [
      [memberHook, memberA],
      [viewerHook, viewerB],
    ] as [Receiver, Who][]) {
      const want = expected.get(who)!.map(([event, data]) => [`projects.${event}`, data]);
      const mine = (d: Delivery): boolean => [startA, startB, one, two, markerA, markerB].includes(d.data.id as number);
      const got = await until(`${who.name}'s webhook deliveries`, () => {
        const seen = [...new Map(hook.got.filter(mine).map((d) => [d.id, d])).values()];
        return seen.length >= want.length && seen;
      });
      expect(
        got.map((d) => [d.type, d.data]),
        `${who.name}'s webhook`,
      ).toEqual(want);
      for (const d of hook.got) {
        if (d.type.endsWith(".create") || d.type.endsWith(".update")) expect(d.data.tenant_id, d.body).toBe(who.tenant);
        if (who.role === "viewer") expect(d.body).not.toContain("budget");
      }
    }
  });

  it("a webhook subscription names a principal granted events, or the service does not mount", () => {
    const base = { name: "w", table: "projects", url: "http://127.0.0.1:9/in", secret: WEBHOOK_SECRET };
    expect(webhookProblems(service, [base])).toEqual([
      "webhook w: the service declares access rules, so a subscription needs the principal it belongs to",
    ]);
    expect(
      webhookProblems(service, [
        { ...base, principal: { subject: "x", roles: ["guest"], claims: { sub: "x", tenant: A } } },
      ]),
    ).toEqual(["webhook w: no role of its principal (guest) is granted events on projects"]);
    expect(webhookProblems(service, [{ ...base, principal: principalOf(viewerB) }])).toEqual([]);
  });

  it("the typed client × role × tenant: a token or a token provider, the oracle's rows, 403 and 404 as ProblemError", async () => {
    const p = prefix("t");
    for (const who of CALLERS) {
      let asked = 0;
      const provided = new client.Client({ baseURL: served.url, token: async () => (asked++, who.token) });
      const fixed = new client.Client({ baseURL: served.url, token: who.token });
      for (const api of [fixed, provided]) {
        const page = await api.projects.list({ where: { stage: { in: ["draft", "active"] } }, perPage: 100 });
        expect(keys("projects", page.items), who.name).toEqual(
          await oracle(who, "projects", "t.stage IN ('draft', 'active')"),
        );
        for (const item of page.items) expect(item).toEqual(await project(who, item.id as number));
        const reach = await oracle(who, "projects");
        for (const id of [1, 4, 6]) {
          if (reach.includes(String(id))) expect(await api.projects.get(id)).toEqual(await project(who, id));
          else await expect(api.projects.get(id)).rejects.toMatchObject({ name: "ProblemError", status: 404 });
        }
      }
      expect(asked, `${who.name}: the provider is asked once per request`).toBe(4);
      const made = fixed.projects.create({
        code: `${p}-${who.sub}`,
        title: "client",
        ...(who.role === "admin" ? { tenant_id: who.tenant, owner: who.sub } : {}),
      });
      if (who.role === "viewer") {
        const e = await made.catch((x: unknown) => x);
        expect(e).toBeInstanceOf(client.ProblemError);
        expect(e).toMatchObject({ status: 403, problem: { type: "/problems/forbidden" } });
      } else {
        const row = await made;
        expect(row).toEqual(await project(who, row.id as number));
        expect(row).toMatchObject({ tenant_id: who.tenant, owner: who.sub });
      }
    }
    await expect(new client.Client({ baseURL: served.url }).projects.list({})).rejects.toMatchObject({ status: 401 });
    await expect(
      new client.Client({ baseURL: served.url, token: async () => "" }).projects.get(1),
    ).rejects.toMatchObject({ status: 401 });
  });

  it("the generated CLI × role × tenant: --token, the oracle's rows, a 403 or 404 printed on stderr with exit 1", async () => {
    const p = prefix("k");
    /** Runs command lines through the tree in one process (CLI_BATCH), each as the binary would run. */
    const batch = async (name: string, lines: string[][]): Promise<RunResult[]> => {
      const commands = path.join(generated, `${kind}-${name}.json`);
      const results = path.join(generated, `${kind}-${name}-results.json`);
      writeFileSync(commands, JSON.stringify(lines));
      const run = await runNode(["--import", "tsx", path.join(generated, "batch.ts"), commands, results], {
        cwd: ROOT,
        env: { STUDIO_BASE_URL: served.url, STUDIO_TOKEN: "" },
        timeout: 120_000,
      });
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(readFileSync(results, "utf8")) as RunResult[];
    };
    const ok = (r: RunResult, what: string): any => {
      expect([r.code, r.stderr], what).toEqual([0, ""]);
      return JSON.parse(r.stdout);
    };
    const refused = (r: RunResult, status: number, what: string): void => {
      expect([r.code, r.stdout], what).toEqual([1, ""]);
      expect(r.stderr, what).toContain(`(HTTP ${status})`);
    };
    const flags = (who: Who): string[] => ["--token", who.token, "--compact"];
    // Reads first, all of them before any write, so each is compared with the oracle of the same rows.
    const reads = await batch("reads", [
      ...CALLERS.flatMap((who) => [
        ["projects", "list", "--stage", "in.(draft,active)", "--per-page", "100", ...flags(who)],
        ["projects", "get", "4", ...flags(who)],
        ["labels", "list", ...flags(who)],
      ]),
      ["projects", "list", "--compact"],
    ]);
    for (const [i, who] of CALLERS.entries()) {
      const [list, get, labels] = reads.slice(i * 3, i * 3 + 3) as [RunResult, RunResult, RunResult];
      const listed = ok(list, `${who.name}: list`) as { items: Row[] };
      expect(keys("projects", listed.items), who.name).toEqual(
        await oracle(who, "projects", "t.stage IN ('draft', 'active')"),
      );
      for (const item of listed.items) expect(item).toEqual(await project(who, item.id as number));
      if ((await oracle(who, "projects")).includes("4"))
        expect(ok(get, `${who.name}: get`)).toEqual(await project(who, 4));
      else refused(get, 404, `${who.name}: get 4`);
      expect(keys("labels", (ok(labels, `${who.name}: labels`) as { items: Row[] }).items)).toEqual(
        await oracle(who, "labels"),
      );
    }
    refused(reads.at(-1)!, 401, "no token");
    const advanceable = new Map<Who, boolean>();
    for (const who of CALLERS) advanceable.set(who, (await oracle(who, "projects", "TRUE", [], "write")).includes("1"));
    const writes = await batch(
      "writes",
      CALLERS.flatMap((who) => [
        [
          "projects",
          "create",
          "--code",
          `${p}-${who.sub}`,
          "--title",
          "cli",
          ...(who.role === "admin" ? ["--tenant-id", who.tenant, "--owner", who.sub] : []),
          ...flags(who),
        ],
        ["projects", "advance", "1", ...flags(who)],
      ]),
    );
    for (const [i, who] of CALLERS.entries()) {
      const [create, advance] = writes.slice(i * 2, i * 2 + 2) as [RunResult, RunResult];
      if (who.role === "viewer") refused(create, 403, `${who.name}: create`);
      else {
        const row = ok(create, `${who.name}: create`) as Row;
        expect(row).toMatchObject({ tenant_id: who.tenant, owner: who.sub, code: `${p}-${who.sub}` });
        expect(row).toEqual(await project(who, row.id as number));
      }
      if (who.role === "viewer") refused(advance, 403, `${who.name}: advance`);
      else if (!advanceable.get(who)) refused(advance, 404, `${who.name}: advance 1`);
      else expect(ok(advance, `${who.name}: advance`)).toMatchObject({ id: 1, tenant_id: A });
    }
    // Member B never reached project 1; the others that did each moved it on one stage.
    expect(CALLERS.filter((w) => advanceable.get(w)).map((w) => w.name)).toEqual(["member A", "admin A", "admin B"]);
  });
});

describe("the OpenAPI document of the matrix schema", () => {
  const doc = emitOpenApi(schema);
  type Method = "get" | "post" | "patch" | "delete";
  const op = (p: string, method: Method): Operation => {
    const o = doc.paths[p]?.[method];
    if (!o) throw new Error(`no ${method} ${p}`);
    return o;
  };
  /** Every operation of every served path, and the roles the fixture grants it (its blocks, expanded by hand). */
  const all = "`viewer`, `member`, `admin`";
  const writers = "`member`, `admin`";
  const GRANTS: [string, Method, string, boolean][] = [
    ["/tenants", "get", all, false],
    ["/tenants/{id}", "get", all, false],
    ["/labels", "get", all, false],
    ["/labels", "post", writers, false],
    ["/labels/{id}", "get", all, false],
    ["/labels/{id}", "patch", writers, false],
    ["/labels/{id}", "delete", "`admin`", false],
    ["/projects", "get", all, true],
    ["/projects", "post", writers, false],
    ["/projects", "patch", writers, false],
    ["/projects", "delete", writers, false],
    ["/projects/{id}", "get", all, true],
    ["/projects/{id}", "patch", writers, false],
    ["/projects/{id}", "delete", writers, false],
    ["/projects/{id}/advance", "post", writers, false],
    ["/projects/events", "get", all, true],
    ["/project_labels", "get", all, false],
    ["/project_labels", "post", writers, false],
  ];

  it("declares the bearer scheme with the roles, and every operation of a served table is in the table above", () => {
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
    });
    const description = String(doc.components?.securitySchemes?.bearerAuth?.description);
    expect(description).toContain("issued by `studio-idp`, for the audience `studio`");
    expect(description).toContain("The roles it may carry, at `role`: `viewer`, `member`, `admin`.");
    expect(description).toContain("A request without a token is a 401.");
    expect(description).not.toContain(SECRET_ENV);
    const listed: string[] = [];
    for (const [p, item] of Object.entries(doc.paths))
      for (const m of ["get", "post", "patch", "delete"] as const) if (item[m]) listed.push(`${m} ${p}`);
    expect(listed.sort()).toEqual(GRANTS.map(([p, m]) => `${m} ${p}`).sort());
  });

  it("the create body requires no column the access rules stamp for some roles (members leave them out)", () => {
    const create = doc.components?.schemas?.ProjectsCreate as { required?: string[]; description?: string };
    expect(create.required).toEqual(["code", "title"]);
    expect(create.description).toContain("The service stamps `tenant_id`, `owner` for the roles whose access rules");
    expect((doc.components?.schemas?.LabelsCreate as { required?: string[] }).required).toEqual(["code", "title"]);
  });

  it("the read types do not promise a column some roles never receive (the typed client and the OpenAPI row)", () => {
    const row = doc.components?.schemas?.ProjectsRow as { required?: string[]; description?: string };
    expect(row.required).not.toContain("budget");
    expect(row.required).toContain("title");
    expect(row.description).toContain("`budget` (hidden from: viewer)");
    const types = readFileSync(path.join(generated, "client", "types.ts"), "utf8");
    const projectsRow = /export interface ProjectsRow \{[\s\S]*?\n\}/.exec(types)?.[0] ?? "";
    expect(projectsRow).toMatch(
      /\* Not received by the role `viewer`: its access rules hide this column\.\n\s*\*\/\n\s*budget\?: number;/,
    );
    expect(projectsRow).toMatch(/\n\s*title: string;/);
  });

  it.each(GRANTS)(
    "%s %s: the bearer requirement, 401 and 403, the roles granted and the hidden budget",
    (p, method, roles, hides) => {
      const o = op(p, method);
      expect(o.security).toEqual([{ bearerAuth: [] }]);
      expect(o.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
      expect(o.responses["403"]).toEqual({ $ref: "#/components/responses/Forbidden" });
      // The roles, then what the rules mean for this kind of operation (compiler/backends/openapi/access.ts).
      expect(o.description).toContain(`Access: roles ${roles}.`);
      if (method === "get" && !p.includes("{") && !p.endsWith("/events"))
        expect(o.description).toContain("Each sees only the rows its rules allow.");
      if (p.includes("{")) expect(o.description).toContain("A row outside the caller's rules is a 404");
      if (hides) expect(o.description).toContain("`budget` (hidden from: viewer)");
      else expect(o.description).not.toContain("hidden from");
    },
  );
});
