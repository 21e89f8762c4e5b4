/**
 * Settings that cannot verify a token are refused when the authenticator is
 * made, naming the setting, its `resc serve` flag and the environment
 * variable (docs/decisions/1367-access-rules.md, "Authentication"): an unset
 * variable, a secret too short for its algorithm, no or several key
 * sources, a key source of the wrong kind, a PEM that does not parse or suit
 * the algorithm, a key set URL in the clear, a claim of a kind no token
 * carries; `mountService` throws them before mounting anything. Overrides
 * replace the schema's settings. A PEM public key verifies RS256 tokens and
 * refuses an HS256 token signed with that public key as its secret
 * (algorithm confusion). An HMAC secret is imported once, not for every token.
 */
import { Hono } from "hono";
import { exportSPKI, generateKeyPair, SignJWT, exportPKCS8 } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuthDescriptor, JwtDescriptor } from "../../runtime/descriptor.js";
import { AuthConfigError } from "../../runtime/auth/errors.js";
import { withOverrides } from "../../runtime/auth/settings.js";
import { createAuthenticator } from "../../runtime/auth/verify.js";
import { mountService } from "../../runtime/http/mount.js";
import type { TestDatabase } from "../support/db.js";
import {
  authWith,
  claim,
  expectRefused,
  hsSettings,
  hsToken,
  notesDatabase,
  notesService,
  now,
  SECRET,
  SECRET_ENV,
  serveNotes,
} from "./support.js";

/** The message of the AuthConfigError that making an authenticator of `auth` throws with `env`. */
function refusal(auth: AuthDescriptor, env: Record<string, string | undefined> = { [SECRET_ENV]: SECRET }): string {
  try {
    createAuthenticator({ auth, env });
  } catch (e) {
    expect(e).toBeInstanceOf(AuthConfigError);
    return (e as Error).message;
  }
  throw new Error("the settings were accepted");
}

/** An auth block with `jwt`. */
function withJwt(jwt: Partial<JwtDescriptor>): AuthDescriptor {
  return authWith({ jwt: { ...hsSettings(), ...jwt } });
}

let pem: string;
let db: TestDatabase;
let rsaPrivate: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true });
  rsaPrivate = pair.privateKey;
  pem = await exportSPKI(pair.publicKey);
  db = await notesDatabase("auth_settings");
});
afterAll(async () => {
  await db?.drop();
});

describe("settings refused at creation", () => {
  it("an unset environment variable, named with its setting and flag", () => {
    expect(refusal(authWith(), {})).toBe(
      `the environment variable ${SECRET_ENV} (jwt secret_env (--jwt-secret-env)) is not set`,
    );
    expect(refusal(withJwt({ algorithms: ["RS256"], secretEnv: undefined, publicKeyEnv: "NOTES_PEM" }), {})).toBe(
      "the environment variable NOTES_PEM (jwt public_key_env (--jwt-public-key-env)) is not set",
    );
  });

  it("a secret shorter than its algorithm needs (32, 48, 64 bytes)", () => {
    expect(refusal(authWith(), { [SECRET_ENV]: "x".repeat(31) })).toMatch(
      new RegExp(`^the secret in ${SECRET_ENV} .* is 31 bytes; HS256 needs at least 32$`),
    );
    expect(refusal(withJwt({ algorithms: ["HS384"] }), { [SECRET_ENV]: "x".repeat(47) })).toMatch(/needs at least 48$/);
    expect(refusal(withJwt({ algorithms: ["HS512"] }), { [SECRET_ENV]: "x".repeat(63) })).toMatch(/needs at least 64$/);
    expect(() =>
      createAuthenticator({ auth: withJwt({ algorithms: ["HS384"] }), env: { [SECRET_ENV]: "x".repeat(48) } }),
    ).not.toThrow();
  });

  it("no key source, several, or one of the wrong kind", () => {
    expect(refusal(withJwt({ secretEnv: undefined }))).toBe(
      "jwt HS256 needs a secret: set secret_env (--jwt-secret-env)",
    );
    expect(refusal(withJwt({ algorithms: ["RS256"], secretEnv: undefined }))).toBe(
      "jwt RS256 needs keys: set jwks_url (--jwks-url) or public_key_env (--jwt-public-key-env)",
    );
    expect(
      refusal(
        withJwt({
          algorithms: ["RS256"],
          secretEnv: undefined,
          jwksUrl: "https://idp.example/jwks",
          publicKeyEnv: "P",
        }),
      ),
    ).toBe("jwt names jwks_url (--jwks-url) and public_key_env (--jwt-public-key-env): give exactly one key source");
    expect(refusal(withJwt({ secretEnv: undefined, jwksUrl: "https://idp.example/jwks" }))).toMatch(
      /^jwt HS256 verifies with a shared secret: set secret_env/,
    );
    expect(refusal(withJwt({ algorithms: ["ES256"] }))).toMatch(/^jwt ES256 verifies with public keys: set jwks_url/);
    expect(refusal(withJwt({ algorithms: ["HS256", "RS256"] }))).toMatch(
      /mixes shared-secret \(HS256\) and public-key/,
    );
    expect(refusal(withJwt({ algorithms: [] }))).toMatch(/algorithms is empty/);
    expect(refusal(withJwt({ algorithms: ["none" as "HS256"] }))).toMatch(
      /^jwt algorithms names none, which is none of/,
    );
  });

  it("a key set URL in the clear, except on this machine", () => {
    const keySet = (jwksUrl: string) => withJwt({ algorithms: ["RS256"], secretEnv: undefined, jwksUrl });
    expect(refusal(keySet("http://idp.example/jwks"))).toMatch(/jwks_url \(--jwks-url\) must be an https: URL/);
    expect(refusal(keySet("not a url"))).toMatch(/is not a URL/);
    expect(() => createAuthenticator({ auth: keySet("http://127.0.0.1:9/jwks") })).not.toThrow();
  });

  it("a PEM that is not a public key, does not parse, or does not suit the algorithm", async () => {
    const pemAuth = (algorithms: JwtDescriptor["algorithms"]) =>
      withJwt({ algorithms, secretEnv: undefined, publicKeyEnv: "NOTES_PEM" });
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    expect(refusal(pemAuth(["RS256"]), { NOTES_PEM: await exportPKCS8(privateKey) })).toMatch(
      /^NOTES_PEM .* must hold a PEM public key \(-----BEGIN PUBLIC KEY-----, SPKI\)$/,
    );
    expect(
      refusal(pemAuth(["RS256"]), { NOTES_PEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----" }),
    ).toMatch(/^NOTES_PEM .* does not hold a readable PEM public key/);
    expect(refusal(pemAuth(["RS256"]), { NOTES_PEM: await exportSPKI(publicKey) })).toMatch(
      /cannot verify: RS256 needs an RSA key, not ec$/,
    );
    expect(refusal(pemAuth(["ES384"]), { NOTES_PEM: await exportSPKI(publicKey) })).toMatch(
      /ES384 needs an EC key on secp384r1$/,
    );
  });

  it("a claim of a kind no token carries, a default role not among the roles", () => {
    expect(refusal(authWith({ claims: [claim("born", "date")] }))).toMatch(/^auth claim born is of kind date/);
    expect(refusal(authWith({ defaultRole: "guest" }))).toBe(
      "auth default_role = guest is not one of its roles (member, admin)",
    );
  });

  it("makes mountService throw before it mounts anything", () => {
    const { service } = notesService(authWith());
    const app = new Hono();
    expect(() => mountService(app, service, { db: db.executor, auth: { env: {} } })).toThrow(AuthConfigError);
    expect(app.routes).toEqual([]);
  });
});

describe("overrides", () => {
  it("replace each setting given, and a key source replaces all of the schema's", () => {
    const schema = hsSettings();
    expect(withOverrides(schema, { issuer: "other", audience: "" })).toEqual({ ...schema, issuer: "other" });
    expect(withOverrides(schema, { secretEnv: "OTHER_SECRET" })).toEqual({ ...schema, secretEnv: "OTHER_SECRET" });
    const { secretEnv: _, ...rest } = schema;
    expect(withOverrides(schema, { jwksUrl: "https://idp.example/jwks", algorithms: ["RS256"] })).toEqual({
      ...rest,
      jwksUrl: "https://idp.example/jwks",
      algorithms: ["RS256"],
    });
    expect(withOverrides(schema, {})).toBe(schema);
    expect(() => withOverrides(undefined, { secretEnv: "X" })).toThrow(/the schema has none/);
  });

  it("apply through mountService: another secret variable, another issuer", async () => {
    const { service } = notesService(authWith());
    const notes = serveNotes(service, db, {
      auth: { env: { OTHER_SECRET: "o".repeat(32) }, jwt: { secretEnv: "OTHER_SECRET", issuer: "other-idp" } },
    });
    expect((await notes.list(await hsToken({ iss: "other-idp" }, "o".repeat(32)))).status).toBe(200);
    expectRefused(await notes.list(await hsToken({}, "o".repeat(32))));
    expectRefused(await notes.list(await hsToken({ iss: "other-idp" })));
  });
});

describe("a PEM public key", () => {
  it("verifies RS256 tokens, and refuses an HS256 token signed with the public key as its secret", async () => {
    const { service } = notesService(
      authWith({ jwt: { ...hsSettings({ algorithms: ["RS256"] }), secretEnv: undefined, publicKeyEnv: "NOTES_PEM" } }),
    );
    const reasons: string[] = [];
    // One line with \n escapes, as a .env file holds it.
    const notes = serveNotes(service, db, {
      auth: {
        env: { NOTES_PEM: pem.trim().replace(/\n/g, "\\n") },
        log: (r) => reasons.push("reason" in r ? r.reason : ""),
      },
    });
    const claims = { sub: "ada", role: "member", iss: "notes-idp", aud: "notes", exp: now() + 60 };
    const good = await new SignJWT(claims).setProtectedHeader({ alg: "RS256" }).sign(rsaPrivate);
    expect((await notes.list(good)).status).toBe(200);
    for (const secret of [pem, pem.trim()]) {
      const confused = await new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256" })
        .sign(new TextEncoder().encode(secret));
      expectRefused(await notes.list(confused), confused);
    }
    expect(reasons).toEqual(["algorithm", "algorithm"]);
  });
});

describe("an HMAC secret", () => {
  it("is imported once per algorithm when the authenticator is made, never per token", async () => {
    // Minted first: signing imports the secret too.
    const tokens = await Promise.all(["HS256", "HS512", "HS256"].map((alg) => hsToken({}, SECRET, alg)));
    const forged = await hsToken({}, "u".repeat(64));
    const unlisted = await hsToken({}, SECRET, "HS384");
    const importKey = vi.spyOn(crypto.subtle, "importKey");
    try {
      const auth = createAuthenticator({
        auth: withJwt({ algorithms: ["HS256", "HS512"] }),
        env: { [SECRET_ENV]: SECRET },
      });
      expect(importKey).toHaveBeenCalledTimes(2);
      for (const token of tokens) expect((await auth.verify(token)).subject).toBe("ada");
      // A token signed with another secret, and one of an algorithm not allowed, are still refused.
      await expect(auth.verify(forged)).rejects.toMatchObject({ reason: "signature" });
      await expect(auth.verify(unlisted)).rejects.toMatchObject({ reason: "algorithm" });
      expect(importKey).toHaveBeenCalledTimes(2);
    } finally {
      importKey.mockRestore();
    }
  });
});
