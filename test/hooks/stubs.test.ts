/**
 * Stubs for the hooks a schema requires (runtime/hooks/stubs.ts; decision
 * 1363): with them the service mounts, each route whose hook is missing
 * answers 501 `/problems/not-implemented` naming the hook to write, and
 * everything else is served. A hook the application wrote is kept.
 */
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Hooks } from "../../runtime/hooks.js";
import { missingHooks, stubMissingHooks } from "../../runtime/hooks/stubs.js";
import { mountService } from "../../runtime/http/mount.js";
import { cmp } from "../../runtime/predicate.js";
import type { TestDatabase } from "../support/db.js";
import { appClient, compileText, databaseWith, type Client } from "./support.js";

/** A stranger's schema: bigint identity keys, an enum, a scoped soft-deleting table with a stamped column and an action. */
const SCHEMA = `
enum status {
  open
  shipped
}

table accounts {
  id    bigint @primary_key @default(identity)
  name  text   @filterable

  resource "/accounts" { ops = [crud, list] }
}

table orders {
  id         bigint       @primary_key @default(identity)
  account_id bigint       @ref(account, accounts) @stamped @filterable
  status     status       @default("open") @filterable
  deleted_at timestamptz? @soft_delete @hidden

  @@scoped
  @@index([account_id])

  resource "/orders" {
    ops = [crud, list]

    action ship {
      carrier text
    }
  }
}
`;

let service: ServiceDescriptor;
let db: TestDatabase;

beforeAll(async () => {
  const compiled = compileText(SCHEMA, "shop.resource");
  service = compiled.service;
  db = await databaseWith("hook_stubs", compiled.ddl, "INSERT INTO accounts (name) VALUES ('first');");
});
afterAll(() => db?.drop());

function serve(hooks: Hooks): Client {
  const app = new Hono();
  const r = mountService(app, service, { db: db.executor, hooks });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("\n"));
  return appClient(app);
}

describe("stubMissingHooks", () => {
  it("lists every hook the schema requires, with what requires it", () => {
    expect(missingHooks(service, {})).toEqual([
      {
        kind: "beforeQuery",
        table: "orders",
        hook: "hooks.beforeQuery.orders",
        declaration: "@@scoped on table orders",
      },
      {
        kind: "beforeCreate",
        table: "orders",
        hook: "hooks.beforeCreate.orders",
        declaration: "@stamped column orders.account_id",
      },
      {
        kind: "actions",
        table: "orders",
        action: "ship",
        hook: "hooks.actions.orders.ship",
        declaration: "action ship on table orders (POST /orders/{id}/ship)",
      },
    ]);
  });

  it("mounts a service that would not, and answers 501 naming the hook to write", async () => {
    expect(mountService(new Hono(), service, { db: db.executor }).ok).toBe(false);
    const client = serve(stubMissingHooks(service, {}));
    expect((await client.get("/accounts")).status).toBe(200);
    for (const [method, url, body, hook] of [
      ["GET", "/orders", undefined, "hooks.beforeQuery.orders"],
      ["GET", "/orders/1", undefined, "hooks.beforeQuery.orders"],
      ["POST", "/orders", {}, "hooks.beforeCreate.orders"],
      ["POST", "/orders/1/ship", { carrier: "post" }, "hooks."],
    ] as const) {
      const r = await client.request<{
        type: string;
        status: number;
        detail: string;
      }>(method, url, body);
      expect(r.status, `${method} ${url}: ${r.text}`).toBe(501);
      expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({
        type: "/problems/not-implemented",
        status: 501,
      });
      expect(r.body.detail).toContain(hook);
      expect(r.body.detail).toMatch(/is not written yet: .* requires it/);
    }
  });

  it("keeps the hooks the application wrote and stubs only the rest", async () => {
    const written: Hooks = {
      beforeQuery: { orders: () => cmp("account_id", "eq", "1") },
      beforeCreate: {
        orders: (_ctx, values) => ({ ...values, account_id: "1" }),
      },
    };
    expect(missingHooks(service, written).map((m) => m.hook)).toEqual(["hooks.actions.orders.ship"]);
    const hooks = stubMissingHooks(service, written);
    expect(hooks.beforeQuery!.orders).toBe(written.beforeQuery!.orders);
    const client = serve(hooks);
    const created = await client.request<{
      id: number;
      account_id: number;
      status: string;
    }>("POST", "/orders", {});
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ account_id: 1, status: "open" });
    expect((await client.get("/orders")).status).toBe(200);
    const ship = await client.request<{ detail: string }>("POST", `/orders/${created.body.id}/ship`, {
      carrier: "post",
    });
    expect(ship.status, ship.text).toBe(501);
    expect(ship.body.detail).toContain("hooks.actions.orders.ship");
  });
});

describe("missingHooks under declared access rules", () => {
  it("asks no hook of what the rules confine and stamp (docs/decisions/1367-access-rules.md)", () => {
    const { service: governed } = compileText(`
auth {
  jwt {
    algorithms = [HS256]
    secret_env = "STUBS_JWT_SECRET"
  }
  roles        = [member]
  default_role = member
  claim org uuid
}

table boards {
  id     bigint @primary_key @default(identity)
  org_id uuid   @stamped
  title  text

  @@scoped

  resource "/boards" {
    ops = [crud, list]
  }

  access member {
    ops = [all]
    rows org_id = claim.org
    stamp org_id = claim.org
  }
}
`);
    expect(missingHooks(governed, {})).toEqual([]);
  });
});
