/**
 * A resource that creates rows can store one
 * (docs/decisions/1253-create-body-completeness.md): a required column no
 * create body carries (hidden or read-only, no default) is an error naming
 * the column and the fixes, unless `@stamped` declares the BeforeCreate hook
 * that sets it; and a `@stamped` column then keeps the resource from
 * mounting until that hook is registered.
 */
import { describe, expect, it } from "vitest";
import { buildDescriptor } from "../../compiler/descriptor.js";
import { registrationErrors } from "../../runtime/hooks/registration.js";
import { check, expectOne, parseOk, withCode } from "./helpers.js";

const schema = (column: string, ops = "[list, read, create]") => `
table accounts {
  id    bigint @primary_key @default(identity)
  email text
  ${column}
  resource "/accounts" { ops = ${ops} }
}
`;

describe("required columns a create body cannot carry", () => {
  it.each([
    ["password_hash text @hidden", "hidden", "@hidden"],
    ["owner text @read_only", "read-only", "@read_only"],
  ])("refuses %s, naming the column and the fixes", (column, why, at) => {
    const src = schema(column);
    const name = column.split(" ")[0]!;
    expectOne(check(src), src, "required-column-unwritable", {
      message:
        `Column "accounts.${name}" is required but ${why}: no create body can carry it, so every create of /accounts would fail. ` +
        `Give it a @default(…), make it nullable (text?), mark it @stamped and set it in a BeforeCreate hook, or take create out of the resource's ops`,
      at,
    });
  });

  it.each([
    "password_hash text? @hidden",
    'password_hash text @hidden @default("")',
    "owner text @stamped",
    "owner text @read_only @stamped",
    "counter serial @read_only",
    'shown text @computed("email")',
  ])("accepts %s", (column) => {
    expect(withCode(check(schema(column)), "required-column-unwritable")).toEqual([]);
  });

  it("accepts a hidden required column on a resource that does not create", () => {
    expect(
      withCode(check(schema("password_hash text @hidden", "[list, read, update]")), "required-column-unwritable"),
    ).toEqual([]);
  });
});

describe("@stamped at mount time", () => {
  const service = buildDescriptor(parseOk(schema("owner text @stamped")));
  it("is read-only in the descriptor", () => {
    expect(service.tables[0]!.columns.find((c) => c.name === "owner")).toMatchObject({ readOnly: true, stamped: true });
  });

  it("keeps the resource from mounting until a BeforeCreate hook is registered", () => {
    const errors = registrationErrors(service, {});
    expect(errors.map((e) => e.message)).toEqual([
      "/accounts: @stamped column accounts.owner requires a BeforeCreate hook (hooks.beforeCreate.accounts) before it is served",
    ]);
    expect(
      registrationErrors(service, { beforeCreate: { accounts: (_ctx, values) => ({ ...values, owner: "x" }) } }),
    ).toEqual([]);
  });
});
