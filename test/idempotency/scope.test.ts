/**
 * Whose an `Idempotency-Key` is (docs/decisions/1360-idempotency-scope.md):
 * the caller as the service knows it (what `idempotencyScope`, else
 * `hookData`, returns for the request), never the credential's text. On the
 * back office schema (bigint identity keys, an enum, numeric, a hidden
 * column, item and collection actions) served with the x-org-id hooks
 * module, on PostgreSQL and on the embedded database: two tenants sending one
 * key and one body make two rows, and neither receives the other's answer,
 * on a create, an item action and a collection action; one tenant's retry
 * replays whatever its credential; with no identity every request shares one
 * scope; a hooks module that reads the tenant from a cookie scopes by the
 * `idempotencyScope` it exports; an identity that is not plain data is a 500
 * naming where it came from.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyScopeOf } from "../../runtime/http/idempotency.js";
import { isProblem, ProblemError } from "../../runtime/problem.js";
import { loadHooksModule } from "../../cli/serving/hooks-module.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { TestDatabase } from "../support/db.js";
import {
  createBackOffice,
  databaseKinds,
  freshDatabase,
  ORG_A,
  ORG_B,
  serveBackOffice,
  type BackOffice,
} from "./support.js";

describe("idempotencyScopeOf", () => {
  it("is one scope for equal identities, whatever their key order, and another for any other identity", () => {
    const a = idempotencyScopeOf({ orgId: ORG_A, userId: "u1" });
    expect(idempotencyScopeOf({ userId: "u1", orgId: ORG_A })).toBe(a);
    expect(idempotencyScopeOf({ userId: "u1", orgId: ORG_A, role: undefined })).toBe(a);
    expect(idempotencyScopeOf({ orgId: ORG_B, userId: "u1" })).not.toBe(a);
    expect(idempotencyScopeOf({ orgId: ORG_A })).not.toBe(a);
    // Strings that would meet if joined naively stay apart.
    expect(idempotencyScopeOf(["a,b"])).not.toBe(idempotencyScopeOf(["a", "b"]));
    expect(idempotencyScopeOf({ n: 7n })).toBe(idempotencyScopeOf({ n: 7 }));
    expect(idempotencyScopeOf({ at: new Date(0) })).toBe(idempotencyScopeOf({ at: "1970-01-01T00:00:00.000Z" }));
    expect(idempotencyScopeOf(undefined)).toBe(idempotencyScopeOf(null));
    expect(idempotencyScopeOf(undefined)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses what identifies nothing with a 500 hook-misconfigured naming the source and the path", () => {
    class Session {
      constructor(readonly org: string) {}
    }
    const cyclic: Record<string, unknown> = { org: ORG_A };
    cyclic.self = cyclic;
    for (const [bad, where] of [
      [{ org: ORG_A, log: () => {} }, "log"],
      [{ session: new Session(ORG_A) }, "session"],
      [{ orgs: [ORG_A, Number.NaN] }, "orgs[1]"],
      [cyclic, "self"],
      [Symbol("x"), "its top"],
    ] as const) {
      let thrown: unknown;
      try {
        idempotencyScopeOf(bad, "hookData");
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(ProblemError);
      expect(isProblem(thrown as ProblemError, "hook-misconfigured")).toBe(true);
      expect((thrown as Error).message).toContain("hookData");
      expect((thrown as Error).message).toContain(where);
    }
  });
});

for (const kind of await databaseKinds()) {
  describe(`the scope of a key on ${kind}`, () => {
    let db: TestDatabase;
    let service: ServiceDescriptor;
    let office: BackOffice;
    const asOrg = (org: string, key: string, extra: Record<string, string> = {}) => ({
      "x-org-id": org,
      "idempotency-key": key,
      ...extra,
    });
    const invoices = async (number: string) =>
      office.rows("SELECT org_id::text AS org, amount::text AS amount FROM invoices WHERE number = $1 ORDER BY id", [
        number,
      ]);

    beforeAll(async () => {
      db = await freshDatabase(kind, "idem_scope");
      service = await createBackOffice(db.executor);
      office = serveBackOffice(db.executor, service);
    }, 60_000);
    afterAll(() => db?.drop());

    it("two tenants sending one key and one body make two rows, each answered its own", async () => {
      const body = { number: "INV-1", amount: "120.50" };
      const a = await office.post("/invoices", body, asOrg(ORG_A, "same-key"));
      const b = await office.post("/invoices", body, asOrg(ORG_B, "same-key"));
      expect([a.status, b.status], b.text).toEqual([201, 201]);
      expect(b.headers.get("idempotent-replayed")).toBeNull();
      expect(b.body.org_id).toBe(ORG_B);
      expect(b.body.id).not.toBe(a.body.id);
      expect(await invoices("INV-1")).toEqual([
        { org: ORG_A, amount: "120.50" },
        { org: ORG_B, amount: "120.50" },
      ]);
      // Each tenant's retry is its own replay.
      const again = await office.post("/invoices", body, asOrg(ORG_B, "same-key"));
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.text).toBe(b.text);
      expect(await invoices("INV-1")).toHaveLength(2);
    });

    it("on an item action, another tenant is answered by its own scope (404), never with the first tenant's row", async () => {
      const made = await office.post("/invoices", { number: "INV-2", amount: "9.99" }, { "x-org-id": ORG_A });
      expect(made.status, made.text).toBe(201);
      const path = `/invoices/${made.body.id}/settle`;
      const a = await office.post(path, { paid_by: "card" }, asOrg(ORG_A, "settle-1"));
      expect(a.status, a.text).toBe(200);
      expect(a.body.state).toBe("paid");
      const b = await office.post(path, { paid_by: "card" }, asOrg(ORG_B, "settle-1"));
      expect(b.headers.get("idempotent-replayed")).toBeNull();
      expect(b.status, b.text).toBe(404);
      expect(b.text).not.toContain("INV-2");
      const retried = await office.post(path, { paid_by: "card" }, asOrg(ORG_A, "settle-1"));
      expect([retried.status, retried.headers.get("idempotent-replayed"), retried.text]).toEqual([200, "true", a.text]);
    });

    it("on a collection action, each tenant's drafts are sent by its own request", async () => {
      for (const org of [ORG_A, ORG_B])
        expect((await office.post("/invoices", { number: `D-${org}`, amount: "1" }, { "x-org-id": org })).status).toBe(
          201,
        );
      const a = await office.post("/invoices/send_drafts", {}, asOrg(ORG_A, "send-1"));
      const b = await office.post("/invoices/send_drafts", {}, asOrg(ORG_B, "send-1"));
      expect([a.status, b.status], b.text).toEqual([200, 200]);
      expect(b.headers.get("idempotent-replayed")).toBeNull();
      const drafts = await office.rows("SELECT count(*)::text AS n FROM invoices WHERE state = 'draft'");
      expect(drafts).toEqual([{ n: "0" }]);
    });

    it("a caller's retry replays whatever credential it sends (a new token, a cookie, none)", async () => {
      const body = { number: "INV-3", amount: "3" };
      const first = await office.post("/invoices", body, asOrg(ORG_A, "retry-1", { authorization: "Bearer first" }));
      expect(first.status).toBe(201);
      const others: Record<string, string>[] = [{ authorization: "Bearer second" }, { cookie: "session=other" }, {}];
      for (const extra of others) {
        const again = await office.post("/invoices", body, asOrg(ORG_A, "retry-1", extra));
        expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
        expect(again.text).toBe(first.text);
      }
      expect(await invoices("INV-3")).toHaveLength(1);
    });

    it("with no identity established, every request shares one scope: the service knows no callers apart", async () => {
      const anonymous = serveBackOffice(db.executor, service, {
        hookData: null,
      });
      const body = { number: "INV-4", amount: "4" };
      const one = await anonymous.post("/invoices", body, {
        "idempotency-key": "anon-1",
        authorization: "Bearer a",
      });
      const two = await anonymous.post("/invoices", body, {
        "idempotency-key": "anon-1",
        authorization: "Bearer b",
      });
      expect([one.status, two.status]).toEqual([201, 201]);
      expect(two.headers.get("idempotent-replayed")).toBe("true");
      expect(await invoices("INV-4")).toHaveLength(1);
    });

    it("a hooks module that tells tenants apart by a cookie scopes keys by the idempotencyScope it exports", async () => {
      const loaded = await loadHooksModule("test/idempotency/fixtures/cookie-tenant.ts", service);
      expect(loaded.idempotencyScope).toBeTypeOf("function");
      const byCookie = serveBackOffice(db.executor, service, {
        hooks: loaded.hooks,
        hookData: null,
        idempotencyScope: loaded.idempotencyScope!,
      });
      const body = { number: "INV-5", amount: "5" };
      const a = await byCookie.post("/invoices", body, {
        "idempotency-key": "c-1",
        cookie: `org=${ORG_A}`,
      });
      const b = await byCookie.post("/invoices", body, {
        "idempotency-key": "c-1",
        cookie: `org=${ORG_B}`,
      });
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(b.headers.get("idempotent-replayed")).toBeNull();
      expect(await invoices("INV-5")).toEqual([
        { org: ORG_A, amount: "5.00" },
        { org: ORG_B, amount: "5.00" },
      ]);
      const again = await byCookie.post("/invoices", body, {
        "idempotency-key": "c-1",
        cookie: `org=${ORG_B}; x=1`,
      });
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.text).toBe(b.text);
    });

    it("an identity that is not plain data is a 500 hook-misconfigured naming hookData, and writes nothing", async () => {
      const broken = serveBackOffice(db.executor, service, {
        hookData: (c) => ({
          orgId: c.req.header("x-org-id") ?? ORG_A,
          log: () => {},
        }),
      });
      const r = await broken.post("/invoices", { number: "INV-6", amount: "6" }, asOrg(ORG_A, "bad-1"));
      expect(r.status).toBe(500);
      expect(r.body.type).toBe("/problems/hook-misconfigured");
      expect(r.body.detail).toContain("hookData");
      expect(await invoices("INV-6")).toHaveLength(0);
    });
  });
}
