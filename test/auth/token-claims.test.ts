/**
 * `resc token` reads the payload it mints with the verification's claim
 * reading (runtime/auth/claims.ts), so it refuses, naming the claim, a token
 * the service would refuse (docs/decisions/1367-access-rules.md).
 */
import { describe, expect, it } from "vitest";
import { developmentPayload } from "../../cli/token/mint.js";
import { authWith, claim } from "./support.js";

const auth = authWith({
  defaultRole: "member",
  claims: [claim("clinic", "uuid"), claim("team", "text", { nullable: true })],
});
const base = { subject: "ada", roles: [], ttlSeconds: 60 };
const CLINIC = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f";

describe("resc token's claims", () => {
  it("mints a token whose claims decode as declared", () => {
    const p = developmentPayload(auth, { ...base, claims: [`clinic=${CLINIC}`] }, 1000);
    expect(p).toMatchObject({ sub: "ada", clinic: CLINIC, exp: 1060, resc_dev: true });
  });

  it("refuses a required claim left out, naming it", () => {
    expect(() => developmentPayload(auth, { ...base, claims: [] }, 1000)).toThrow(
      /would refuse this token: the token lacks the claim clinic \(clinic\) \(give it with --claim name=value\)/,
    );
  });

  it("refuses a value that does not decode as the claim's type, naming the claim and type", () => {
    expect(() => developmentPayload(auth, { ...base, claims: ["clinic=not-a-uuid"] }, 1000)).toThrow(
      /the claim clinic \(clinic\) is not uuid/,
    );
  });

  it("refuses a token with no role when the schema has no default role", () => {
    const strict = authWith({ claims: [] });
    expect(() => developmentPayload(strict, { ...base, claims: [] }, 1000)).toThrow(/names no role/);
  });
});
