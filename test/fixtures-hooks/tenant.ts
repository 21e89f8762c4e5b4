/**
 * A hooks module for `resc dev --hooks` in the CLI tests: a function of the
 * service descriptor (docs/decisions/0603-dev-hooks-module.md), so it
 * confines whatever tenant tables the schema has. The tenant comes from the
 * `x-org-id` request header (default: the seed's first org): a stand-in for
 * the token the reference application reads.
 */
import type { Context } from "hono";
import { and, cmp, type Hooks, type Predicate, type ServiceDescriptor } from "../../runtime/index.js";
import { declaredActions } from "../support/actions.js";

const DEFAULT_ORG = "00000000-0000-4000-8000-000000000001";

/** Each request's hook data: the org it acts for. */
export function hookData(c: Context): { orgId: string } {
  return { orgId: c.req.header("x-org-id") ?? DEFAULT_ORG };
}

/** BeforeQuery on every table with an `org_id` column or a soft-delete column, and on `orgs`; BeforeCreate stamping `org_id`. */
export function hooks(service: ServiceDescriptor): Hooks {
  const out: Required<Pick<Hooks, "beforeQuery" | "beforeCreate">> = { beforeQuery: {}, beforeCreate: {} };
  for (const t of service.tables) {
    const hasOrg = t.columns.some((c) => c.name === "org_id");
    const soft = t.softDeleteColumn;
    if (!hasOrg && !soft && !t.scoped) continue;
    out.beforeQuery[t.name] = (ctx) => {
      const org = String(ctx.data?.orgId ?? DEFAULT_ORG);
      const parts: Predicate[] = [];
      if (t.name === "orgs") parts.push(cmp("id", "eq", org));
      if (hasOrg) parts.push(cmp("org_id", "eq", org));
      if (soft) parts.push(cmp(soft, "isnull"));
      return parts.length > 0 ? and(...parts) : undefined;
    };
    if (hasOrg) {
      out.beforeCreate[t.name] = (ctx, values) => ({ ...values, org_id: String(ctx.data?.orgId ?? DEFAULT_ORG) });
    }
  }
  return { ...out, actions: declaredActions(service) };
}
