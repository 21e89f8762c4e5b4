import { describe, expect, it } from "vitest";
import { check, expectOne } from "./helpers.js";

const schema = (column: string, extra = "@@index([org_id])") => `
table orgs {
  id bigint @primary_key
}

table users {
  id bigint @primary_key
  ${column}
  ${extra}
}
`;

describe("schema lint (spec: Column capabilities, Schema lint reports)", () => {
  it("is silent for a filterable, indexed inverse-bearing reference", () => {
    expect(check(schema("org_id bigint @ref(org, orgs) @filterable @inverse(members)"))).toEqual([]);
  });

  it("counts the primary key's leading column and a unique column as an index", () => {
    const pk = `
table orgs {
  id bigint @primary_key
}
table memberships {
  org_id  bigint @ref(org, orgs)
  user_id bigint
  @@primary_key([org_id, user_id])
}
`;
    expect(check(pk)).toEqual([]);
    expect(check(schema("org_id bigint @ref(org, orgs) @unique", ""))).toEqual([]);
  });

  it("warns about an inverse-bearing reference that is not filterable", () => {
    const src = schema("org_id bigint @ref(org, orgs) @inverse(members)");
    expectOne(check(src), src, "inverse-ref-not-filterable", {
      message:
        '"users.org_id" carries inverse "members" but is not @filterable, so the rest of a capped collection cannot be paged with ?org_id=eq.<id>',
      at: "@inverse",
      severity: "warning",
    });
  });

  it("warns about a foreign key without an index leading with it", () => {
    const src = schema("org_id bigint @ref(org, orgs) @filterable", "other bigint\n  @@index([other, org_id])");
    expectOne(check(src), src, "unindexed-foreign-key", {
      message: 'Foreign key "users.org_id" has no index leading with it; add @@index([org_id])',
      at: "@ref",
      severity: "warning",
    });
  });
});
