/**
 * The roles the OpenAPI document names for an operation and a column, from
 * the descriptor's expanded grants (docs/decisions/1367-access-rules.md). The
 * IR-to-descriptor mapping is tested in descriptor-access.test.ts.
 */
import { describe, expect, it } from "vitest";
import { rolesGranted, rolesHiding } from "../../compiler/backends/openapi/access.js";

describe("the roles the OpenAPI document names", () => {
  it("names the roles granted an operation and those a column is hidden from", () => {
    const block = (roles: string[], ops: string[], hide: string[] = []) => ({ roles, ops, rows: [], stamps: [], hide });
    const blocks = [
      block(["viewer"], ["list", "read"], ["secret"]),
      block(["member"], ["list", "read", "create"], ["secret"]),
      block(["member", "admin"], ["list", "read", "create", "update", "delete", "archive", "events"]),
    ];
    expect(rolesGranted(blocks, "list")).toEqual(["viewer", "member", "admin"]);
    expect(rolesGranted(blocks, "create")).toEqual(["member", "admin"]);
    expect(rolesGranted(blocks, "archive")).toEqual(["member", "admin"]);
    expect(rolesGranted(blocks, "restore")).toEqual([]);
    // member's third block shows the column: hidden only where every block naming the role hides it.
    expect(rolesHiding(blocks, "secret")).toEqual(["viewer"]);
  });
});
