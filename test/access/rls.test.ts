/**
 * The database-role mode (docs/decisions/1368-database-row-level-security.md):
 * every statement of a request runs in a transaction that first sets the
 * principal's database role and its claims (`request.jwt.claims`), so a
 * table's own row-level security policies apply besides the declared rules.
 * On PostgreSQL, on PGlite (which has roles and policies too) and through a
 * real PgBouncer in transaction mode: each principal sees exactly the rows
 * its policy reaches (compared with SQL), a write outside the policy is a
 * 403 naming no SQL, nothing leaks between interleaved requests of different
 * principals on one small pool, and the pool's connections come back as the
 * login role.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import pg from "pg";
import { mountService, type MountOptions } from "../../runtime/http/mount.js";
import type { Principal } from "../../runtime/auth/principal.js";
import type {
  AccessDescriptor,
  AuthDescriptor,
  DatabaseRoleDescriptor,
  ServiceDescriptor,
  TableDescriptor,
} from "../../runtime/descriptor.js";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import { createReplicaRouter } from "../../runtime/exec/replicas.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { AuthConfigError } from "../../runtime/auth/errors.js";
import { DatabaseRoleRefused } from "../../runtime/exec/identity.js";
import { IDEMPOTENCY_TABLE, IDEMPOTENCY_TABLE_DDL } from "../../runtime/idempotency-store.js";
import type { TestDatabase } from "../support/db.js";
import { PGBOUNCER, startPgBouncer, type TestBouncer } from "../support/pgbouncer.js";
import { compileText, sendTo, type Answer } from "../support/service.js";
import { databaseKinds, freshDatabase } from "../idempotency/support.js";
import { createDevApp } from "../../cli/dev/app.js";
import { hsToken, SECRET } from "../auth/support.js";
import { principalFromHeader, who } from "../support/principal.js";

const SCHEMA = `
table notes {
  id    bigint @primary_key @default(identity)
  org   text   @filterable
  title text
  resource "/notes" { ops = [crud, list] }
}
`;

/** Role names of this run: roles are the server's, not the database's, so they must not meet another run's. */
const TAG = `rls_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
const MEMBER = `${TAG}_member`;
const VIEWER = `${TAG}_viewer`;
const AUTHENTICATED = `${TAG}_auth`;
const ANON = `${TAG}_anon`;
const GHOST = `${TAG}_ghost`;
const ROLES = [MEMBER, VIEWER, AUTHENTICATED, ANON];

/**
 * {@link SCHEMA} with the mode declared by its own `auth` block (docs/access.md, "With PostgreSQL's
 * row-level security"): the same table, so it is served over the same database.
 */
const DECLARED = `
auth {
  jwt { algorithms = [HS256], secret_env = "RLS_TEST_JWT_SECRET" }
  roles     = [${MEMBER}, ${VIEWER}]
  anonymous = ${ANON}
  claim org text?
  database {
    role   = principal
    claims = "request.jwt.claims"
  }
}

table notes {
  id    bigint @primary_key @default(identity)
  org   text   @filterable
  title text
  resource "/notes" { ops = [crud, list] }
  access ${MEMBER}, ${VIEWER}, ${ANON} { ops = [all] }
}
`;

/** The policy reads the claims PostgREST's way; the oracle below is the same condition in plain SQL. */
const POLICY_SQL = [
  ...ROLES.map((r) => `CREATE ROLE "${r}" NOLOGIN`),
  "ALTER TABLE notes ENABLE ROW LEVEL SECURITY",
  "ALTER TABLE notes FORCE ROW LEVEL SECURITY",
  "CREATE POLICY by_org ON notes USING (org = current_setting('request.jwt.claims', true)::jsonb->>'org')",
  `GRANT SELECT, INSERT, UPDATE, DELETE ON notes TO "${MEMBER}", "${AUTHENTICATED}"`,
  `GRANT SELECT ON notes TO "${VIEWER}", "${ANON}"`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ${IDEMPOTENCY_TABLE} TO "${MEMBER}"`,
];

/** Every role may do everything here: what a caller reaches is the database's policy alone. */
const ACCESS: AccessDescriptor[] = [
  {
    roles: [MEMBER, VIEWER, GHOST],
    ops: ["list", "read", "create", "update", "delete"],
    rows: [],
    stamps: [],
    hide: [],
  },
];

function governed(service: ServiceDescriptor, database: DatabaseRoleDescriptor, anonymous?: string): ServiceDescriptor {
  const auth: AuthDescriptor = {
    roles: [MEMBER, VIEWER, GHOST, ...(anonymous ? [anonymous] : [])],
    roleClaim: ["role"],
    claims: [
      { name: "sub", path: ["sub"], kind: "text", array: false, sqlType: "text", nullable: false },
      { name: "org", path: ["org"], kind: "text", array: false, sqlType: "text", nullable: true },
    ],
    database,
    ...(anonymous ? { anonymous } : {}),
  };
  const access = anonymous ? [...ACCESS, { ...ACCESS[0]!, roles: [anonymous] }] : ACCESS;
  return { ...service, auth, tables: service.tables.map((t): TableDescriptor => ({ ...t, access })) };
}

const BY_PRINCIPAL: DatabaseRoleDescriptor = { role: "principal", claimsSetting: "request.jwt.claims" };

const as = (p: Principal): Record<string, string> => ({ "x-principal": JSON.stringify(p) });

interface Note {
  id: number;
  org: string;
  title: string;
}

/** A mounted service: its sender, and what its hooks saw of the database session. */
interface Mounted {
  send<T = unknown>(
    method: string,
    path: string,
    p: Principal | undefined,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer<T>>;
  /** `current_user` and the claims setting, as each list request's BeforeQuery hook read them through `ctx.db`. */
  sessions: { user: string; claims: string | null; subject: string }[];
  faults: unknown[];
}

function mount(service: ServiceDescriptor, db: Executor, extra: Partial<MountOptions> = {}): Mounted {
  const app = new Hono();
  app.use(principalFromHeader);
  const sessions: Mounted["sessions"] = [];
  const faults: unknown[] = [];
  const mounted = mountService(app, service, {
    db,
    auth: false,
    logError: (e) => faults.push(e),
    hooks: {
      beforeQuery: {
        notes: async (ctx) => {
          if (ctx.operation === "list") {
            const r = await ctx.db!.query({
              text: "SELECT current_user::text AS u, current_setting('request.jwt.claims', true) AS c",
              values: [],
            });
            sessions.push({
              user: String(r.rows[0]!.u),
              claims: r.rows[0]!.c ?? null,
              subject: ctx.principal!.subject,
            });
          }
          return undefined;
        },
      },
    },
    ...extra,
  });
  if (!mounted.ok) throw new Error(mounted.errors.map((e) => e.message).join("\n"));
  return {
    send: (method, path, p, body, headers = {}) => sendTo(app, method, path, body, { ...(p ? as(p) : {}), ...headers }),
    sessions,
    faults,
  };
}

/** The ids of `org`'s rows, read as the login role (which bypasses the policy): the oracle. */
async function oracle(db: Executor, org: string): Promise<number[]> {
  const r = await db.query({
    text: "SELECT id::text AS id FROM notes WHERE org = $1 ORDER BY notes.id",
    values: [org],
  });
  return r.rows.map((row) => Number(row.id));
}

async function listIds(m: Mounted, p: Principal): Promise<number[]> {
  const r = await m.send<{ items: Note[] }>("GET", "/notes?per_page=200", p);
  expect(r.status, r.text).toBe(200);
  return r.body.items.map((n) => n.id).sort((x, y) => x - y);
}

/** Sets up the schema, the store of idempotency keys, the roles, the policy and 30 rows in orgs a, b and c. */
async function prepare(db: Executor, ddl: string): Promise<void> {
  await db.script(ddl);
  await db.script(IDEMPOTENCY_TABLE_DDL);
  for (const s of POLICY_SQL) await db.script(s);
  await db.query({
    text: "INSERT INTO notes (org, title) SELECT (ARRAY['a','b','c'])[1 + i % 3], 'seed ' || i FROM generate_series(1, 30) i",
    values: [],
  });
}

/** Drops this run's roles from the server (after their database is gone, which held every grant they had). */
async function dropRoles(url: string | undefined): Promise<void> {
  if (url === undefined) return;
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  try {
    for (const r of ROLES) await c.query(`DROP ROLE IF EXISTS "${r}"`);
  } finally {
    await c.end();
  }
}

/**
 * Many interleaved requests of different principals: lists (through the BeforeQuery hook's `ctx.db`),
 * reads, creates with and without `Idempotency-Key`. Every answer must be the asking principal's alone.
 */
async function interleave(m: Mounted, rounds: number): Promise<void> {
  const orgs = ["a", "b", "c"];
  const work: Promise<void>[] = [];
  for (let i = 0; i < rounds; i++) {
    const org = orgs[i % 3]!;
    const p = who(MEMBER, org, `user-${i}`);
    const step = i % 4;
    if (step === 0 || step === 3)
      work.push(
        (async () => {
          const r = await m.send<{ items: Note[] }>("GET", "/notes?per_page=200", p);
          expect(r.status, r.text).toBe(200);
          expect(
            r.body.items.every((n) => n.org === org),
            `a list of org ${org}`,
          ).toBe(true);
        })(),
      );
    else
      work.push(
        (async () => {
          const keyed = step === 2 ? { "idempotency-key": `${TAG}-${i}` } : undefined;
          const r = await m.send<Note>("POST", "/notes", p, { org, title: `burst ${i}` }, keyed);
          expect(r.status, r.text).toBe(201);
          expect(r.body.org).toBe(org);
          const back = await m.send<Note>("GET", `/notes/${r.body.id}`, p);
          expect(back.status).toBe(200);
          // Another org's member never sees it.
          const other = await m.send("GET", `/notes/${r.body.id}`, who(MEMBER, orgs[(i + 1) % 3]!));
          expect(other.status).toBe(404);
        })(),
      );
  }
  await Promise.all(work);
}

/** Every session a hook saw was its own request's: the claims of its principal, the role the claims name. */
function sessionsOwn(m: Mounted): void {
  expect(m.sessions.length).toBeGreaterThan(0);
  for (const s of m.sessions) {
    const claims = JSON.parse(s.claims ?? "{}") as { sub?: string; role?: string };
    expect(claims.sub ?? "").toBe(s.subject);
    expect(claims.role).toBe(s.user);
  }
}

/** Statements on the executor's connections outside any request: every one is the login role's, with no claims. */
async function poolIsClean(db: Executor, loginRole: string, connections: number): Promise<void> {
  const held = await Promise.all(
    Array.from({ length: connections * 3 }, () =>
      db.query({
        text: "SELECT current_user::text AS u, current_setting('request.jwt.claims', true) AS c FROM pg_sleep(0.01)",
        values: [],
      }),
    ),
  );
  for (const r of held) {
    expect(r.rows[0]!.u).toBe(loginRole);
    // A setting made with SET LOCAL reads back as '' in that session afterwards, never as a request's claims.
    expect([null, ""]).toContain(r.rows[0]!.c);
  }
}

describe.each(await databaseKinds())("the database-role mode on %s", (kind) => {
  let db: TestDatabase;
  let m: Mounted;
  let service: ServiceDescriptor;

  beforeAll(async () => {
    db = await freshDatabase(kind, "access-rls");
    const compiled = compileText(SCHEMA);
    await prepare(db.executor, compiled.ddl);
    service = compiled.service;
    m = mount(governed(service, BY_PRINCIPAL), db.executor);
  });
  afterAll(async () => {
    await db?.drop();
    if (kind === "pg") await dropRoles(db?.url);
  });

  it("each principal sees exactly the rows its policy reaches", async () => {
    for (const org of ["a", "b", "c", "nobody"]) {
      expect(await listIds(m, who(MEMBER, org))).toEqual(await oracle(db.executor, org));
    }
    const [bRow] = await oracle(db.executor, "b");
    expect((await m.send("GET", `/notes/${bRow}`, who(MEMBER, "a"))).status).toBe(404);
    expect((await m.send("GET", `/notes/${bRow}`, who(MEMBER, "b"))).status).toBe(200);
    // The hook's ctx.db ran as the role, with the claims document.
    const last = m.sessions.at(-1)!;
    expect(last.user).toBe(MEMBER);
    expect(JSON.parse(last.claims!)).toEqual({ sub: `${MEMBER}-nobody`, org: "nobody", role: MEMBER });
  });

  it("a write outside the policy is a 403 naming no SQL, and writes nothing", async () => {
    const before = await oracle(db.executor, "b");
    const r = await m.send<{ type: string; detail: string; errors: { location: string; detail: string }[] }>(
      "POST",
      "/notes",
      who(MEMBER, "a"),
      { org: "b", title: "smuggled" },
    );
    expect(r.status).toBe(403);
    expect(r.body.type).toBe("/problems/forbidden");
    expect(r.body.errors).toEqual([{ location: "body", detail: "the database's row-level security refuses this row" }]);
    expect(r.text).not.toMatch(/by_org|select|insert|current_setting|security policy|sqlstate|42501|"notes"/i);
    expect(await oracle(db.executor, "b")).toEqual(before);
    // Moving one's own row out of the policy: the same 403, nothing changed.
    const [aRow] = await oracle(db.executor, "a");
    const moved = await m.send("PATCH", `/notes/${aRow}`, who(MEMBER, "a"), { org: "b" });
    expect(moved.status).toBe(403);
    expect(await oracle(db.executor, "a")).toContain(aRow);
    // Another org's row is not there to update or delete: 404, as a declared rule answers.
    expect((await m.send("PATCH", `/notes/${before[0]}`, who(MEMBER, "a"), { title: "x" })).status).toBe(404);
    expect((await m.send("DELETE", `/notes/${before[0]}`, who(MEMBER, "a"))).status).toBe(404);
    expect(await oracle(db.executor, "b")).toEqual(before);
    // Inside the policy the same writes succeed.
    const ok = await m.send<Note>("POST", "/notes", who(MEMBER, "a"), { org: "a", title: "mine" });
    expect(ok.status, ok.text).toBe(201);
    expect((await m.send("DELETE", `/notes/${ok.body.id}`, who(MEMBER, "a"))).status).toBe(204);
  });

  it("a role the database grants no INSERT is a 403; the database's own faults stay 500s", async () => {
    const r = await m.send<{ type: string; errors: unknown[] }>("POST", "/notes", who(VIEWER, "a"), {
      org: "a",
      title: "viewer",
    });
    expect(r.status).toBe(403);
    expect(r.body.errors).toEqual([{ location: "request", detail: "the database does not grant it to your role" }]);
    expect(await listIds(m, who(VIEWER, "a"))).toEqual(await oracle(db.executor, "a"));
    // A declared role with no database role behind it is the deployment's fault: 500, logged, naming the role.
    const ghost = await m.send("GET", "/notes", who(GHOST, "a"));
    expect(ghost.status).toBe(500);
    expect(m.faults.at(-1)).toBeInstanceOf(DatabaseRoleRefused);
    expect((m.faults.at(-1) as Error).message).toContain(GHOST);
  });

  it("an Idempotency-Key's transaction acts as the role too: a replay, and a refusal stored nowhere", async () => {
    const key = { "idempotency-key": `${TAG}-replay-${kind}` };
    const first = await m.send<Note>("POST", "/notes", who(MEMBER, "c"), { org: "c", title: "keyed" }, key);
    expect(first.status, first.text).toBe(201);
    const again = await m.send<Note>("POST", "/notes", who(MEMBER, "c"), { org: "c", title: "keyed" }, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    const refused = await m.send(
      "POST",
      "/notes",
      who(MEMBER, "c"),
      { org: "a", title: "keyed" },
      {
        "idempotency-key": `${TAG}-refused-${kind}`,
      },
    );
    expect(refused.status).toBe(403);
    const stored = await db.executor.query({
      text: `SELECT count(*)::text AS n FROM ${IDEMPOTENCY_TABLE} WHERE key = $1`,
      values: [`${TAG}-refused-${kind}`],
    });
    expect(stored.rows[0]!.n).toBe("0");
  });

  it("nothing leaks between interleaved requests of different principals", async () => {
    await interleave(m, kind === "pg" ? 120 : 40);
    for (const org of ["a", "b", "c"])
      expect(await listIds(m, who(MEMBER, org))).toEqual(await oracle(db.executor, org));
    sessionsOwn(m);
    if (kind === "pg") await poolIsClean(db.executor, "postgres", 5);
  });

  it("a fixed role for every token, and the anonymous role for requests without one", async () => {
    const fixed = mount(
      governed(
        service,
        { role: { fixed: AUTHENTICATED }, anonymousRole: ANON, claimsSetting: "request.jwt.claims" },
        "visitor",
      ),
      db.executor,
    );
    expect(await listIds(fixed, who(VIEWER, "b"))).toEqual(await oracle(db.executor, "b"));
    expect(fixed.sessions.at(-1)!.user).toBe(AUTHENTICATED);
    // The viewer's own role may not insert; as the fixed role it may, inside the policy.
    const created = await fixed.send<Note>("POST", "/notes", who(VIEWER, "b"), { org: "b", title: "fixed" });
    expect(created.status, created.text).toBe(201);
    // Without a principal, the built-in verification is off here: a principal the middleware would set.
    const anonymous: Principal = { subject: "", roles: ["visitor"], claims: { sub: null, org: null }, anonymous: true };
    expect(await listIds(fixed, anonymous)).toEqual([]);
    expect(fixed.sessions.at(-1)).toEqual({ user: ANON, claims: JSON.stringify({ role: ANON }), subject: "" });
    expect((await fixed.send("POST", "/notes", anonymous, { org: "b", title: "anon" })).status).toBe(403);
  });

  it("reads on a replica router stay in the mode, in transactions on the replica", async () => {
    let onReplica = 0;
    const replica: Executor = {
      ...db.executor,
      query: (s) => db.executor.query(s),
      transaction: (fn) => {
        onReplica++;
        return db.executor.transaction(fn);
      },
      script: (s) => db.executor.script(s),
      close: async () => {},
    };
    const routed = mount(governed(service, BY_PRINCIPAL), db.executor, {
      readDb: createReplicaRouter([{ name: "replica", db: replica }], db.executor),
    });
    expect(await listIds(routed, who(MEMBER, "a"))).toEqual(await oracle(db.executor, "a"));
    const [cRow] = await oracle(db.executor, "c");
    expect((await routed.send("GET", `/notes/${cRow}`, who(MEMBER, "a"))).status).toBe(404);
    // The list's page and the read: each a transaction of its own on the replica.
    expect(onReplica).toBe(2);
  });

  it("takes the settings from a schema declaring database { role = principal }, served as resc dev serves it", async () => {
    const declared = compileText(DECLARED).service;
    expect(declared.auth!.database).toEqual(BY_PRINCIPAL);
    const sessions: { user: string; claims: string | null }[] = [];
    // resc dev's app: the compiled descriptor mounted with no databaseRole option, tokens verified for real.
    const { app, mounted } = createDevApp(declared, {
      db: db.executor,
      auth: { env: { RLS_TEST_JWT_SECRET: SECRET } },
      hooks: {
        beforeQuery: {
          notes: async (ctx) => {
            const r = await ctx.db!.query({
              text: "SELECT current_user::text AS u, current_setting('request.jwt.claims', true) AS c",
              values: [],
            });
            sessions.push({ user: String(r.rows[0]!.u), claims: r.rows[0]!.c ?? null });
            return undefined;
          },
        },
      },
    });
    expect(mounted.ok).toBe(true);
    const bearer = async (role: string, org: string) => ({
      authorization: `Bearer ${await hsToken({ sub: `${role}-${org}`, role, org }, SECRET)}`,
    });
    const list = async (headers: Record<string, string>) => {
      const r = await sendTo<{ items: Note[] }>(app, "GET", "/notes?per_page=200", undefined, headers);
      expect(r.status, r.text).toBe(200);
      return r.body.items.map((n) => n.id).sort((x, y) => x - y);
    };
    for (const org of ["a", "b"]) expect(await list(await bearer(MEMBER, org))).toEqual(await oracle(db.executor, org));
    expect(sessions.at(-1)!.user).toBe(MEMBER);
    expect(JSON.parse(sessions.at(-1)!.claims!)).toEqual({ sub: `${MEMBER}-b`, org: "b", role: MEMBER });
    // The declared rule grants the viewer every operation; the database's GRANT does not: a 403.
    const viewer = await bearer(VIEWER, "a");
    expect(await list(viewer)).toEqual(await oracle(db.executor, "a"));
    expect(sessions.at(-1)!.user).toBe(VIEWER);
    const refused = await sendTo(app, "POST", "/notes", { org: "a", title: "viewer" }, viewer);
    expect(refused.status).toBe(403);
    // Without a token: the anonymous role, as its own database role, with no org claim: the policy shows nothing.
    expect(await list({})).toEqual([]);
    expect(sessions.at(-1)).toEqual({ user: ANON, claims: JSON.stringify({ role: ANON }) });
    // The same service without the declared block reads as the login role, which the policy does not confine.
    const { database: _declared, ...auth } = declared.auth!;
    const plain = createDevApp(
      { ...declared, auth },
      { db: db.executor, auth: { env: { RLS_TEST_JWT_SECRET: SECRET } } },
    );
    const all = await sendTo<{ items: Note[] }>(
      plain.app,
      "GET",
      "/notes?per_page=200",
      undefined,
      await bearer(MEMBER, "a"),
    );
    expect(all.body.items.length).toBeGreaterThan((await oracle(db.executor, "a")).length);
  });

  it("takes the settings from the mount's databaseRole as from the schema", async () => {
    const { database: _fromSchema, ...auth } = governed(service, BY_PRINCIPAL).auth!;
    const bare = { ...governed(service, BY_PRINCIPAL), auth };
    const plain = mount(bare, db.executor);
    // Without the mode the login role reads every row: it bypasses the policy.
    expect((await listIds(plain, who(MEMBER, "a"))).length).toBeGreaterThan((await oracle(db.executor, "a")).length);
    const moded = mount(bare, db.executor, { databaseRole: BY_PRINCIPAL });
    expect(await listIds(moded, who(MEMBER, "a"))).toEqual(await oracle(db.executor, "a"));
    expect(() =>
      mountService(new Hono(), service, { db: db.executor, auth: false, databaseRole: BY_PRINCIPAL }),
    ).toThrow(/needs an auth block/);
  });

  it("refuses at mount a role the database cannot take, or a fixed role leaving anonymous requests without one", () => {
    const app = new Hono();
    const none = { ...governed(service, BY_PRINCIPAL) };
    none.auth = { ...none.auth!, roles: [...none.auth!.roles, "none"] };
    expect(() => mountService(app, none, { db: db.executor, auth: false })).toThrow(AuthConfigError);
    expect(() =>
      mountService(
        app,
        governed(service, { role: { fixed: "pg_read_all_data" }, claimsSetting: "request.jwt.claims" }),
        {
          db: db.executor,
          auth: false,
        },
      ),
    ).toThrow(/predefined/);
    expect(() =>
      mountService(
        app,
        governed(service, { role: { fixed: AUTHENTICATED }, claimsSetting: "request.jwt.claims" }, "visitor"),
        { db: db.executor, auth: false },
      ),
    ).toThrow(/anonymous/);
    expect(() =>
      mountService(app, governed(service, { role: "principal", claimsSetting: "claims" }), {
        db: db.executor,
        auth: false,
      }),
    ).toThrow(/custom setting/);
  });
});

if (!PGBOUNCER) console.warn("access/rls.test.ts: the PgBouncer part is skipped: pgbouncer is not installed");
const server = PGBOUNCER ? await freshDatabaseIfServer() : undefined;

async function freshDatabaseIfServer(): Promise<TestDatabase | undefined> {
  return (await databaseKinds()).includes("pg") ? freshDatabase("pg", "access-rls-bouncer") : undefined;
}

describe.skipIf(server === undefined)("the database-role mode through PgBouncer in transaction mode", () => {
  let bouncer: TestBouncer;
  let through: Executor;
  let m: Mounted;

  beforeAll(async () => {
    await prepare(server!.executor, compileText(SCHEMA).ddl);
    bouncer = await startPgBouncer(server!.url!, 2);
    // Three client connections over two server connections: transactions of different principals take turns on each.
    through = createPgExecutor({ connectionString: bouncer.through(server!.url!), max: 3, pgbouncer: true });
    m = mount(governed(compileText(SCHEMA).service, BY_PRINCIPAL), through);
  }, 60_000);
  afterAll(async () => {
    await through?.close();
    await bouncer?.stop();
    await server?.drop();
    await dropRoles(server?.url);
  });

  it("each principal sees its rows, interleaved requests never meet, the server connections stay the login role's", async () => {
    for (const org of ["a", "b", "c"])
      expect(await listIds(m, who(MEMBER, org))).toEqual(await oracle(server!.executor, org));
    await interleave(m, 150);
    for (const org of ["a", "b", "c"])
      expect(await listIds(m, who(MEMBER, org))).toEqual(await oracle(server!.executor, org));
    sessionsOwn(m);
    const refused = await m.send("POST", "/notes", who(MEMBER, "a"), { org: "b", title: "smuggled" });
    expect(refused.status).toBe(403);
    await poolIsClean(through, "postgres", 3);
  });
});
