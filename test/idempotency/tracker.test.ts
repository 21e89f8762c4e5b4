/**
 * `Idempotency-Key` on the reference application (docs/decisions/1360-idempotency-scope.md),
 * in process on PostgreSQL and on the embedded database `npm start` uses:
 * a keyed `POST /tasks` is answered (its tenancy hook queries the executor
 * it closed over from inside the keyed transaction, which on one connection
 * once waited on itself and froze every later request) and the service
 * keeps answering, login included; a retry with a fresh token of the same
 * user replays the first answer; concurrent keyed creates of two users make
 * their own rows. Then `spec.resource` without its access model
 * (test/support/ungoverned.ts) served with the x-org-id hooks module, whose
 * hook data tells tenants apart: two orgs sending one key and one body make
 * two tasks, and an org retrying another's action key is answered as itself.
 */
import { readFileSync } from "node:fs";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTrackerApp } from "../../examples/tracker/app.js";
import { SCHEMA_FILE, SEED_FILE } from "../../examples/tracker/database.js";
import { issueToken } from "../../examples/tracker/auth/token.js";
import { createDevApp } from "../../cli/dev/app.js";
import { hookData as tenantData, hooks as tenantHooks } from "../fixtures-hooks/tenant.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, sendTo, type Answer } from "../support/service.js";
import { ungovernedSpecText } from "../support/ungoverned.js";
import { ACME, ADA, ALAN, GLOBEX, SECRET } from "../tracker/setup.js";
import { databaseKinds, freshDatabase, within } from "./support.js";

for (const kind of await databaseKinds()) {
  describe(`the tracker's keyed writes on ${kind}`, () => {
    let db: TestDatabase;
    let app: Hono;
    const faults: unknown[] = [];
    const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      within(sendTo<any>(app, method, path, body, headers), `${method} ${path}`);
    const bearer = (token: string, key?: string): Record<string, string> => ({
      authorization: `Bearer ${token}`,
      ...(key === undefined ? {} : { "idempotency-key": key }),
    });
    const login = async (email: string): Promise<string> => {
      const r = await send("POST", "/auth/login", { email, password: "demo-password" });
      expect(r.status, r.text).toBe(200);
      return r.body.token as string;
    };
    const titled = async (title: string) =>
      (await db.executor.query({ text: "SELECT org_id::text AS org FROM tasks WHERE title = $1", values: [title] }))
        .rows;

    beforeAll(async () => {
      db = await freshDatabase(kind, "idem_tracker");
      await db.executor.script(readFileSync(SCHEMA_FILE, "utf8"));
      await db.executor.script(readFileSync(SEED_FILE, "utf8"));
      app = createTrackerApp({ db: db.executor, jwtSecret: SECRET, logError: (e) => faults.push(e) });
    }, 60_000);
    afterAll(() => db?.drop());

    it("answers a keyed POST /tasks, then keeps answering every request, login included", async () => {
      const token = await login("ada@acme.test");
      const body = { list_id: 1, title: "Keyed on the tracker", labels: ["retry"] };
      const created = await send("POST", "/tasks", body, bearer(token, "tracker-1"));
      expect(created.status, created.text).toBe(201);
      expect(created.body.org_id).toBe(ACME);
      expect((await login("ada@acme.test")).length).toBeGreaterThan(0);
      const listed = await send("GET", "/tasks?title=eq.Keyed on the tracker", undefined, bearer(token));
      expect([listed.status, listed.body.items?.length]).toEqual([200, 1]);
      // A keyed write whose reference hook refuses it is answered too, and stores nothing.
      const refused = await send("POST", "/tasks", { ...body, list_id: 4 }, bearer(token, "tracker-2"));
      expect(refused.status, refused.text).toBe(422);
      expect((await send("POST", "/tasks", body, bearer(token, "tracker-2"))).status).toBe(201);
      expect(await titled("Keyed on the tracker")).toHaveLength(2);
      expect(faults).toEqual([]);
    });

    it("replays across a fresh login: two tokens of one user are one caller", async () => {
      const first = await login("ada@acme.test");
      // Another sign-in, a minute earlier: another token text for the same user and org.
      const second = await issueToken({ userId: ADA, orgId: ACME }, SECRET, 3600, Math.floor(Date.now() / 1000) - 60);
      expect(second).not.toBe(first);
      const body = { list_id: 2, title: "Written once across logins", labels: [] };
      const a = await send("POST", "/tasks", body, bearer(first, "outage-1"));
      expect(a.status, a.text).toBe(201);
      const b = await send("POST", "/tasks", body, bearer(second, "outage-1"));
      expect([b.status, b.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
      expect(b.text).toBe(a.text);
      expect(await titled("Written once across logins")).toHaveLength(1);
      // Another user of the same org is another caller: the same key is its own request.
      const alan = await issueToken({ userId: ALAN, orgId: ACME }, SECRET);
      const c = await send("POST", "/tasks", body, bearer(alan, "outage-1"));
      expect([c.status, c.headers.get("idempotent-replayed")]).toEqual([201, null]);
      expect(await titled("Written once across logins")).toHaveLength(2);
    });

    it("concurrent keyed creates of two users each make their own row and nothing else waits", async () => {
      const ada = await login("ada@acme.test");
      const grace = await login("grace@globex.test");
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2 === 0
            ? send("POST", "/tasks", { list_id: 1, title: `Concurrent ${i}`, labels: [] }, bearer(ada, `c-${i}`))
            : send("POST", "/tasks", { list_id: 4, title: `Concurrent ${i}`, labels: [] }, bearer(grace, `c-${i}`)),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
      expect(answers.filter((a) => a.body.org_id === GLOBEX)).toHaveLength(6);
      expect((await send("GET", "/lists", undefined, bearer(grace))).status).toBe(200);
    });
  });

  describe(`spec.resource with the x-org-id hooks module on ${kind}`, () => {
    let db: TestDatabase;
    let post: (path: string, body: unknown, headers: Record<string, string>) => Promise<Answer<any>>;
    const count = async (title: string) =>
      (
        await db.executor.query({
          text: "SELECT org_id::text AS org FROM tasks WHERE title = $1 ORDER BY org_id",
          values: [title],
        })
      ).rows.map((r) => r.org);

    beforeAll(async () => {
      db = await freshDatabase(kind, "idem_tenant");
      await db.executor.script(readFileSync(SCHEMA_FILE, "utf8"));
      await db.executor.script(readFileSync(SEED_FILE, "utf8"));
      const { service } = compileText(ungovernedSpecText(), "spec.resource");
      const { app, mounted } = createDevApp(service, {
        db: db.executor,
        hooks: tenantHooks(service),
        hookData: tenantData,
        openapi: false,
      });
      expect(mounted.ok).toBe(true);
      post = (path, body, headers) => within(sendTo<any>(app, "POST", path, body, headers), `POST ${path}`);
    }, 60_000);
    afterAll(() => db?.drop());

    it("two orgs sending one key and one body make two tasks, each answered its own", async () => {
      const body = { list_id: 1, title: "Same key, two orgs", labels: [] };
      const a = await post("/tasks", body, { "x-org-id": ACME, "idempotency-key": "org-key" });
      const b = await post("/tasks", body, { "x-org-id": GLOBEX, "idempotency-key": "org-key" });
      expect([a.status, b.status], b.text).toEqual([201, 201]);
      expect(b.headers.get("idempotent-replayed")).toBeNull();
      expect([a.body.org_id, b.body.org_id]).toEqual([ACME, GLOBEX]);
      expect(await count("Same key, two orgs")).toEqual([ACME, GLOBEX]);
    });

    it("an org sending another's action key is answered as itself: 404, never the other org's task", async () => {
      const a = await post("/tasks/2/complete", { note: "shipped" }, { "x-org-id": ACME, "idempotency-key": "done-2" });
      expect(a.status, a.text).toBe(200);
      expect(a.body.title).toBe("Order titanium");
      const b = await post(
        "/tasks/2/complete",
        { note: "shipped" },
        { "x-org-id": GLOBEX, "idempotency-key": "done-2" },
      );
      expect(b.headers.get("idempotent-replayed")).toBeNull();
      expect(b.status, b.text).toBe(404);
      expect(b.text).not.toContain("Order titanium");
    });
  });
}
