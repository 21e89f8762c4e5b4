/**
 * Bearer tokens from a real identity provider (oidc-provider, test/auth/idp.ts)
 * verified against its JWK set (docs/decisions/1367-access-rules.md,
 * "Authentication"), through `mountService` on the embedded database:
 *
 * - RS256 and ES256 access tokens are accepted, roles read from an array
 *   claim, the subject the client's id;
 * - a token for another audience, and one signed by a key the set does not
 *   hold (an unknown `kid`), are refused;
 * - a burst of unknown `kid`s fetches the set at most once per cooldown;
 * - the provider rotates its keys while resc runs: a token of the new key is
 *   accepted without restart (its unknown `kid` fetches the set again), a
 *   token of the removed key is still accepted while the cached set holds it
 *   and refused once the cache has refreshed;
 * - a key set that cannot be fetched is a 503, not a 401.
 */
import { SignJWT, decodeProtectedHeader, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JwtDescriptor } from "../../runtime/descriptor.js";
import type { KeySetCacheOptions } from "../../runtime/auth/keys.js";
import type { TestDatabase } from "../support/db.js";
import { freePort } from "../support/ports.js";
import { AUDIENCE, CLIENT, RESOURCES, signingKey, startIdp, type Idp, type SigningKey } from "./idp.js";
import {
  authWith,
  claim,
  expectRefused,
  notesDatabase,
  notesService,
  now,
  serveNotes,
  type NotesApp,
} from "./support.js";

const ORG = "7d4b5f0e-2c1a-4e3b-9f6d-8a7b6c5d4e3f";

let db: TestDatabase;
let idp: Idp;
let es1: SigningKey;
let rs1: SigningKey;

/** The provider's settings: RS256 and ES256 from its key set, its issuer, audience notes. */
function settings(): JwtDescriptor {
  return {
    algorithms: ["RS256", "ES256"],
    jwksUrl: idp.jwksUrl,
    issuer: idp.issuer,
    audience: AUDIENCE,
    clockToleranceSeconds: 30,
  };
}

/** Why each token was refused, as the log callback received it. */
const reasons: string[] = [];

/** The notes served with the provider's settings and `cache`. */
function served(cache: KeySetCacheOptions = {}): NotesApp {
  const { service } = notesService(authWith({ jwt: settings(), roleClaim: ["roles"], claims: [claim("org", "uuid")] }));
  return serveNotes(service, db, {
    auth: { keySetCache: cache, log: (r) => reasons.push("reason" in r ? r.reason : "keys-unavailable") },
  });
}

/** A token signed by `key` (not one of the provider's), with the provider's issuer and audience. */
async function foreignToken(key: SigningKey): Promise<string> {
  return new SignJWT({ sub: "mallory", roles: ["admin"], org: ORG })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "at+jwt" })
    .setIssuer(idp.issuer)
    .setAudience(AUDIENCE)
    .setExpirationTime(now() + 600)
    .sign(await importJWK(key, key.alg));
}

beforeAll(async () => {
  db = await notesDatabase("auth_idp");
  [es1, rs1] = await Promise.all([signingKey("ES256", "es-1"), signingKey("RS256", "rs-1")]);
  idp = await startIdp([es1, rs1], { roles: ["admin", "unknown-role"], org: ORG });
});
afterAll(async () => {
  await idp?.close();
  await db?.drop();
});

describe("tokens of the identity provider", () => {
  it("accepts RS256 and ES256 access tokens, roles from an array claim", async () => {
    const notes = served();
    for (const resource of [RESOURCES.rs256, RESOURCES.es256]) {
      const token = await idp.token(resource);
      const r = await notes.list(token);
      expect(r.status, resource).toBe(200);
      expect(notes.last()).toEqual({
        subject: CLIENT.id,
        roles: ["admin"],
        claims: { sub: CLIENT.id, org: ORG },
        // The token's exp, which ends a change feed stream (docs/decisions/1367-access-rules.md).
        expiresAt: expect.any(Number),
      });
    }
  });

  it("refuses a token for another audience", async () => {
    const token = await idp.token(RESOURCES.other);
    expectRefused(await served().list(token), token);
    expect(reasons.at(-1)).toBe("audience");
  });

  it("refuses a token of a key the set does not hold, fetching the set at most once per cooldown", async () => {
    const notes = served({ cooldownSeconds: 600 });
    expect((await notes.list(await idp.token(RESOURCES.es256))).status).toBe(200);
    const before = idp.keySetFetches();
    for (let i = 0; i < 20; i++) {
      const token = await foreignToken(await signingKey("ES256", `unknown-${i}`));
      expectRefused(await notes.list(token), token);
    }
    expect(idp.keySetFetches() - before).toBeLessThanOrEqual(1);
    expect(reasons.slice(-20)).toEqual(Array(20).fill("key"));
  });
});

describe("key rotation while serving", () => {
  it("accepts the new key without restart and refuses the removed one once the cache refreshed", async () => {
    // A short cache and no cooldown: each step below fetches what it needs, whatever the timing.
    const notes = served({ maxAgeSeconds: 1, cooldownSeconds: 0 });
    // One that keeps its set for ten minutes: a removed key is honoured until its cache refreshes.
    const steady = served({ maxAgeSeconds: 600, cooldownSeconds: 600 });
    const old = await idp.token(RESOURCES.es256);
    expect((await notes.list(old)).status).toBe(200);
    expect((await steady.list(old)).status).toBe(200);

    // The provider publishes a new key and signs with it, keeping the old one published for a while.
    const es2 = await signingKey("ES256", "es-2");
    idp.rotate([es2, rs1, es1]);
    const fresh = await idp.token(RESOURCES.es256);
    expect(decodeProtectedHeader(old).kid).toBe("es-1");
    expect(decodeProtectedHeader(fresh).kid).toBe("es-2");
    const fetched = idp.keySetFetches();
    expect((await notes.list(fresh)).status).toBe(200);
    expect(idp.keySetFetches()).toBeGreaterThan(fetched);
    expect((await notes.list(old)).status).toBe(200);

    // The old key is removed: refused once the short cache has refreshed, never before for the steady one.
    idp.rotate([es2, rs1]);
    await new Promise((r) => setTimeout(r, 1100));
    expectRefused(await notes.list(old), old);
    expect(reasons.at(-1)).toBe("key");
    expect((await notes.list(fresh)).status).toBe(200);
    expect((await steady.list(old)).status).toBe(200);
  });
});

describe("a key set that cannot be fetched", () => {
  it("is a 503 with Retry-After, not a refusal", async () => {
    const port = await freePort();
    const { service } = notesService(
      authWith({ jwt: { ...settings(), jwksUrl: `http://127.0.0.1:${port}/jwks` }, roleClaim: ["roles"] }),
    );
    const notes = serveNotes(service, db, { auth: { keySetCache: { timeoutSeconds: 1 } } });
    const token = await idp.token(RESOURCES.es256);
    const r = await notes.list(token);
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("5");
    expect(r.body).toMatchObject({
      type: "/problems/keys-unavailable",
      errors: [{ location: "header.authorization" }],
    });
  });
});
