/**
 * Resource blocks and the API block (spec: Resource declaration;
 * Authentication rule 3): a path has the form `/<segment>` and names one
 * collection only; `security` names schemes declared once in `api`. A
 * resource exposing no operation serves nothing and is linted.
 */
import type { ResourceDecl } from "../../language/ir.js";
import { withHint, exposedTables, settingSpan, type ValidationContext } from "./context.js";

/** One URL path segment of unreserved characters (RFC 3986), so it needs no escaping. */
const PATH = /^\/[A-Za-z0-9._~-]+$/;

/** Reports `invalid-resource-path`, `duplicate-resource-path`, `unknown-security-scheme`, `duplicate-security-scheme` and `resource-without-ops`. */
export function checkResources(ctx: ValidationContext): void {
  const schemes = new Set<string>();
  for (const scheme of ctx.index.schema.api?.securitySchemes ?? []) {
    if (schemes.has(scheme.name)) {
      ctx.error(
        "duplicate-security-scheme",
        `security scheme "${scheme.name}" is declared more than once`,
        scheme.span,
      );
    }
    schemes.add(scheme.name);
  }
  const paths = new Map<string, ResourceDecl>();
  for (const { table, resource } of exposedTables(ctx.index.schema.tables)) {
    const pathSpan = settingSpan(resource, "path");
    if (!PATH.test(resource.path)) {
      ctx.error(
        "invalid-resource-path",
        `resource path "${resource.path}" must have the form /<segment> (letters, digits, "-", "_", ".", "~")`,
        pathSpan,
      );
    }
    const first = paths.get(resource.path);
    if (first) {
      ctx.error(
        "duplicate-resource-path",
        `resource path "${resource.path}" is already served by table "${tableOf(ctx, first)}"`,
        pathSpan,
      );
    } else {
      paths.set(resource.path, resource);
    }
    for (const req of resource.security) {
      if (!schemes.has(req.scheme)) {
        const declared = [...schemes].sort().join(", ") || "none";
        ctx.error(
          "unknown-security-scheme",
          withHint(
            `security scheme "${req.scheme}" is not declared in the api block (declared: ${declared})`,
            req.scheme,
            schemes,
          ),
          req.span,
        );
      }
    }
    if (resource.ops.length === 0) {
      ctx.warning(
        "resource-without-ops",
        `resource "${resource.path}" of table "${table.name}" exposes no operation`,
        settingSpan(resource, "ops"),
      );
    }
  }
}

function tableOf(ctx: ValidationContext, resource: ResourceDecl): string {
  return ctx.index.schema.tables.find((t) => t.resource === resource)?.name ?? "?";
}
