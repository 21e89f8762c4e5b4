/**
 * Registration (spec: Column capabilities, last paragraph): a table
 * declaring `@@scoped`, or carrying a soft-delete column, does not mount
 * until a BeforeQuery hook confines it; `mountService` returns every
 * missing registration at once, never throws, and mounts nothing then
 * (docs/decisions/0600-hooks.md).
 */
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Executor } from "../../runtime/exec/executor.js";
import type { Hooks } from "../../runtime/hooks.js";
import { registrationErrors } from "../../runtime/hooks/registration.js";
import { mountService } from "../../runtime/http/mount.js";
import { cmp } from "../../runtime/predicate.js";
import { hooks as tenantHooks } from "../fixtures-hooks/tenant.js";
import { compileText, specSchema } from "./support.js";

/** Never reached: nothing here sends a request that gets to the database. */
const noDb: Executor = {
  query: () => Promise.reject(new Error("no database in this test")),
  transaction: () => Promise.reject(new Error("no database in this test")),
  script: () => Promise.reject(new Error("no database in this test")),
  close: () => Promise.resolve(),
};

let spec: ServiceDescriptor;
beforeAll(async () => {
  spec = (await specSchema()).service;
});

/**
 * Tables of spec.resource that need a hook, with the declarations requiring it: a BeforeQuery hook for
 * `@@scoped` and `@soft_delete`, a BeforeCreate hook for each `@stamped` column of a resource that creates.
 */
function needed(service: ServiceDescriptor): { table: string; declaration: string }[] {
  return service.tables
    .filter((t) => t.resource)
    .flatMap((t) => [
      ...(t.scoped ? [{ table: t.name, declaration: `@@scoped on table ${t.name}` }] : []),
      ...(t.resource!.ops.create
        ? t.columns
            .filter((c) => c.stamped)
            .map((c) => ({ table: t.name, declaration: `@stamped column ${t.name}.${c.name}` }))
        : []),
    ])
    .concat(
      // Declared actions come after every hook, in table order (runtime/hooks/registration.ts).
      service.tables.flatMap((t) =>
        (t.resource?.actions ?? []).map((a) => ({ table: t.name, declaration: `action ${a.name} on table ${t.name}` })),
      ),
    );
}

describe("mountService registration", () => {
  it("spec.resource without hooks: every missing registration, with its declaration and resource; nothing mounted", async () => {
    const app = new Hono();
    const r = mountService(app, spec, { db: noDb });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const want = needed(spec);
    // users is @@scoped: in the list whatever else the tracker scopes. A soft-delete column needs no hook:
    // resc filters it itself (docs/decisions/1367-access-rules.md).
    expect(want).toContainEqual({ table: "users", declaration: "@@scoped on table users" });
    expect(r.errors.some((e) => e.message.includes("@soft_delete"))).toBe(false);
    expect(r.errors.map((e) => ({ table: e.table, declaration: e.declaration }))).toEqual(want);
    // The tracker's tasks declare actions: each needs its implementation too (docs/decisions/1334-declared-actions.md).
    expect(want).toContainEqual({ table: "tasks", declaration: "action complete on table tasks" });
    for (const e of r.errors) {
      const path = spec.tables.find((t) => t.name === e.table)?.resource?.path;
      if (e.declaration!.startsWith("action ")) {
        expect(e.kind).toBe("missing-action");
        expect(e.message).toMatch(
          /^\/tasks: action \w+ on table tasks \(POST \/tasks\/\{id\}\/\w+\) requires an implementation \(hooks\.actions\.tasks\.\w+\)/,
        );
        continue;
      }
      expect(e.kind).toBe("missing-hook");
      expect(e.resource).toBe(path);
      const hook = e.declaration!.startsWith("@stamped") ? "BeforeCreate" : "BeforeQuery";
      const key = hook === "BeforeCreate" ? "beforeCreate" : "beforeQuery";
      expect(e.message).toContain(`${path}: ${e.declaration} requires a ${hook} hook (hooks.${key}.${e.table})`);
    }
    // Not even the tables that need no hook were mounted.
    for (const t of spec.tables.filter((x) => x.resource?.ops.list)) {
      expect((await app.request(t.resource!.path)).status, t.name).toBe(404);
    }
  });

  it("a table both scoped and soft-deleting gets the scoped error only; the base path is in the resource", () => {
    const r = mountService(new Hono(), spec, { db: noDb, basePath: "/api/" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const tasks = r.errors.filter((e) => e.table === "tasks");
    expect(tasks.map((e) => e.declaration)).toContain("@@scoped on table tasks");
    expect(tasks.map((e) => e.declaration)).not.toContain("@soft_delete column tasks.deleted_at");
    expect(new Set(tasks.map((e) => e.resource))).toEqual(new Set(["/api/tasks"]));
  });

  it("only the missing hook is reported; with all of them it mounts", () => {
    const all = tenantHooks(spec);
    const { users: _dropped, ...rest } = all.beforeQuery!;
    const partial: Hooks = { ...all, beforeQuery: rest };
    const r = mountService(new Hono(), spec, { db: noDb, hooks: partial });
    expect(r).toEqual({
      ok: false,
      errors: [
        {
          resource: "/users",
          table: "users",
          kind: "missing-hook",
          declaration: "@@scoped on table users",
          message:
            "/users: @@scoped on table users requires a BeforeQuery hook (hooks.beforeQuery.users) before it is served",
        },
      ],
    });
    expect(mountService(new Hono(), spec, { db: noDb, hooks: all })).toEqual({ ok: true });
  });

  it("a hook under a name that is no table is an error, so a typo cannot leave a table unconfined", () => {
    const hooks: Hooks = { ...tenantHooks(spec), afterCommit: { taks: () => {} } };
    const r = mountService(new Hono(), spec, { db: noDb, hooks });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      {
        resource: "hooks.afterCommit.taks",
        table: "taks",
        kind: "unknown-table",
        message: 'hooks.afterCommit.taks: the schema has no table "taks", so this hook would never run',
      },
    ]);
  });

  it("a scoped table served only through an expansion needs its hook too, named with the resource that expands onto it", () => {
    const { service } = compileText(`
      table tenants {
        id integer @primary_key
        name text
        @@scoped
      }
      table projects {
        id integer @primary_key
        tenant_id integer @ref(tenant, tenants, expandable) @filterable
        @@index([tenant_id])
        resource "/projects" { ops = [reads] }
      }
    `);
    expect(registrationErrors(service, {})).toEqual([
      {
        resource: "/projects",
        table: "tenants",
        kind: "missing-hook",
        declaration: "@@scoped on table tenants",
        message:
          '/projects: @@scoped on table tenants requires a BeforeQuery hook (hooks.beforeQuery.tenants) before it is served (/projects expands onto it through "tenant")',
      },
    ]);
    expect(registrationErrors(service, { beforeQuery: { tenants: () => cmp("id", "eq", 1) } })).toEqual([]);
  });

  it("a schema needing no hook mounts without any", () => {
    const { service } = compileText(`
      table notes {
        id integer @primary_key
        body text
        resource "/notes" { ops = [reads] }
      }
    `);
    expect(mountService(new Hono(), service, { db: noDb })).toEqual({ ok: true });
  });
});
