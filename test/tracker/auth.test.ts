/**
 * Authentication of the reference application (spec: Authentication;
 * docs/decisions/0701-tracker-authentication.md): POST /auth/login issues
 * the tokens that resc verifies on every generated route, as spec.resource's
 * `auth` block declares (docs/decisions/1367-access-rules.md), refusals as
 * 401 problem documents.
 */
import { sign } from "hono/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTrackerApp } from "../../examples/tracker/app.js";
import { hashPassword, verifyPassword } from "../../examples/tracker/auth/password.js";
import { issueToken, TOKEN_ISSUER } from "../../examples/tracker/auth/token.js";
import { service } from "../../examples/tracker/generated/tracker/index.js";
import { ACME, ADA, SECRET, startTracker, type Tracker } from "./setup.js";

let t: Tracker;
beforeAll(async () => {
  t = await startTracker("auth");
});
afterAll(async () => {
  await t?.drop();
});

const SEEDED_HASH =
  "scrypt$16384$8$1$0123456789abcdef0123456789abcdef$e1a423243cd930a10002aa193f41cbce554dad0ec978965bbc889dea94745a3a";

function expectUnauthorized(r: { status: number; headers: Headers; body: any }, invalidToken: boolean): void {
  expect(r.status).toBe(401);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.headers.get("www-authenticate")).toBe(
    invalidToken ? 'Bearer realm="tracker", error="invalid_token"' : 'Bearer realm="tracker"',
  );
  expect(r.body).toMatchObject({ type: "/problems/unauthorized", title: "Unauthorized", status: 401 });
  expect(r.body.errors.length).toBeGreaterThan(0);
}

describe("passwords", () => {
  it("checks the seed's hash format", async () => {
    expect(await verifyPassword("demo-password", SEEDED_HASH)).toBe(true);
    expect(await verifyPassword("demo-passwore", SEEDED_HASH)).toBe(false);
  });

  it("hashes with a fresh salt that verifies", async () => {
    const a = await hashPassword("correct horse");
    const b = await hashPassword("correct horse");
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse", a)).toBe(true);
    expect(await verifyPassword("correct horsE", a)).toBe(false);
  });

  it("answers false, without throwing, for stored values it cannot use", async () => {
    const bad = [
      "",
      "plain",
      "bcrypt$16384$8$1$00$00",
      "scrypt$16384$8$1$zz$e1a4",
      "scrypt$1000$8$1$0123456789abcdef$e1a423243cd930a10002aa193f41cbce", // N not a power of two
      "scrypt$1073741824$8$1$0123456789abcdef$e1a423243cd930a10002aa193f41cbce", // N too large
      "scrypt$16384$64$1$0123456789abcdef$e1a423243cd930a10002aa193f41cbce", // r too large
    ];
    for (const stored of bad) expect(await verifyPassword("demo-password", stored), stored).toBe(false);
    expect(await verifyPassword("demo-password", undefined)).toBe(false);
  });
});

describe("tokens", () => {
  const who = { userId: ADA, orgId: ACME };

  it("issues the claims spec.resource's auth block verifies, and names its caller", async () => {
    expect(TOKEN_ISSUER).toBe(service.auth?.jwt?.issuer);
    const r = await t.request("GET", "/orgs", { token: await issueToken(who, SECRET) });
    expect(r.status).toBe(200);
    expect(r.body.items.map((o: { id: string }) => o.id)).toEqual([ACME]);
  });

  it("refuses expired, forged, unsigned, foreign and expiry-less tokens", async () => {
    const now = Math.floor(Date.now() / 1000);
    const refused = async (token: string, why: RegExp): Promise<void> => {
      const before = t.logs.length;
      expectUnauthorized(await t.request("GET", "/tasks", { token }), true);
      // The 401 never says why; the log does (docs/decisions/1367-access-rules.md).
      expect(t.logs.slice(before).join("\n")).toMatch(why);
    };
    await refused(await issueToken(who, SECRET, 60, now - 3600), /auth: token refused \(the token has expired/);
    await refused(await issueToken(who, SECRET + "x"), /auth: token refused/);
    const body = Buffer.from(JSON.stringify({ iss: TOKEN_ISSUER, sub: ADA, org: ACME, exp: now + 60 })).toString(
      "base64url",
    );
    await refused(`${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${body}.`, /auth: token refused/);
    await refused(await sign({ iss: TOKEN_ISSUER, sub: ADA, org: ACME, exp: now + 60 }, SECRET, "HS512"), /refused/);
    await refused(await sign({ iss: "someone-else", sub: ADA, org: ACME, exp: now + 60 }, SECRET, "HS256"), /iss/);
    await refused(await sign({ iss: TOKEN_ISSUER, sub: ADA, org: ACME }, SECRET, "HS256"), /exp/);
    await refused(await sign({ iss: TOKEN_ISSUER, sub: ADA, org: "acme", exp: now + 60 }, SECRET, "HS256"), /org/);
    await refused(await sign({ iss: TOKEN_ISSUER, sub: ADA, exp: now + 60 }, SECRET, "HS256"), /org/);
  });
});

describe("createTrackerApp", () => {
  it("refuses a secret shorter than 32 bytes", () => {
    expect(() => createTrackerApp({ db: t.db.executor, jwtSecret: "x".repeat(31) })).toThrow(/at least 32 bytes/);
  });
});

describe("POST /auth/login", () => {
  it("returns a token for the right password, carrying the user and the org, never cached", async () => {
    const r = await t.request("POST", "/auth/login", { body: { email: "ada@acme.test", password: "demo-password" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toEqual({ token: expect.any(String), expires_in: 3600 });
    const claims = JSON.parse(Buffer.from(r.body.token.split(".")[1], "base64url").toString()) as Record<
      string,
      number | string
    >;
    expect(claims).toMatchObject({ iss: TOKEN_ISSUER, sub: ADA, org: ACME });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    expect((await t.request("GET", `/users/${ADA}`, { token: r.body.token })).status).toBe(200);
  });

  it("answers a wrong password and an unknown email with the same 401", async () => {
    const wrong = await t.request("POST", "/auth/login", { body: { email: "ada@acme.test", password: "nope" } });
    const unknown = await t.request("POST", "/auth/login", {
      body: { email: "eve@acme.test", password: "demo-password" },
    });
    expectUnauthorized(wrong, false);
    expectUnauthorized(unknown, false);
    expect(unknown.body).toEqual(wrong.body);
    expect(JSON.stringify(wrong.body)).not.toContain("ada@acme.test");
  });

  it("refuses malformed bodies with a 400 problem document listing every problem", async () => {
    const cases: [unknown, string[]][] = [
      ["not json", ["body"]],
      ["", ["body"]],
      [[1, 2], ["body"]],
      ["null", ["body"]],
      [{}, ["body.email", "body.password"]],
      [{ email: "ada@acme.test" }, ["body.password"]],
      [{ email: 7, password: true }, ["body.email", "body.password"]],
      [{ email: "", password: "demo-password" }, ["body.email"]],
      [{ email: "a".repeat(321), password: "demo-password" }, ["body.email"]],
      [{ email: "ada@acme.test", password: "demo-password", org: ACME }, ["body.org"]],
    ];
    for (const [body, locations] of cases) {
      const r = await t.request("POST", "/auth/login", { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.body.type).toBe("/problems/invalid-body");
      expect(r.body.errors.map((e: { location: string }) => e.location)).toEqual(locations);
    }
    const extra = await t.request("POST", "/auth/login", { body: { email: "x", password: "y", role: "admin" } });
    expect(extra.body.errors[0]).toMatchObject({ location: "body.role", allowed: ["email", "password"] });
  });

  it("refuses a body larger than 16 KiB with a 413", async () => {
    const r = await t.request("POST", "/auth/login", {
      body: { email: "ada@acme.test", password: "x".repeat(20_000) },
    });
    expect(r.status).toBe(413);
    expect(r.body.type).toBe("/problems/body-too-large");
  });
});

describe("bearer middleware", () => {
  /** One request per generated route of the schema, with a path that would exist. */
  const routes: [string, string][] = service.tables.flatMap((table) => {
    const res = table.resource;
    if (!res) return [];
    const out: [string, string][] = [];
    if (res.ops.list) out.push(["GET", res.path]);
    if (res.ops.read) out.push(["GET", `${res.path}/1`]);
    if (res.ops.create) out.push(["POST", res.path]);
    if (res.ops.update) out.push(["PATCH", `${res.path}/1`]);
    if (res.ops.delete) out.push(["DELETE", `${res.path}/1`]);
    return out;
  });

  it("covers every generated route of the schema", () => {
    expect(routes.length).toBeGreaterThanOrEqual(15);
  });

  it("answers 401 on every generated route without a token", async () => {
    for (const [method, path] of routes) {
      const r = await t.request(method, path, method === "POST" || method === "PATCH" ? { body: { title: "x" } } : {});
      expectUnauthorized(r, false);
    }
  });

  it("answers 401 invalid_token on every generated route with a bad token", async () => {
    for (const [method, path] of routes)
      expectUnauthorized(await t.request(method, path, { token: "not.a.token" }), true);
  });

  it("refuses other schemes, forged and expired tokens, and tokens in the query string", async () => {
    const good = await t.login("ada@acme.test");
    expectUnauthorized(await t.request("GET", "/tasks", { headers: { authorization: `Basic ${good}` } }), true);
    expectUnauthorized(await t.request("GET", "/tasks", { headers: { authorization: "Bearer" } }), true);
    expectUnauthorized(await t.request("GET", `/tasks?access_token=${good}`), false);
    const forged = await issueToken({ userId: ADA, orgId: ACME }, "another-secret-that-is-long-enough-0123456789");
    expectUnauthorized(await t.request("GET", "/tasks", { token: forged }), true);
    const expired = await issueToken({ userId: ADA, orgId: ACME }, SECRET, 60, Math.floor(Date.now() / 1000) - 600);
    const r = await t.request("GET", "/tasks", { token: expired });
    expectUnauthorized(r, true);
    // The same detail whatever failed (docs/decisions/1367-access-rules.md); the log says the token expired.
    expect(r.body.detail).toBe((await t.request("GET", "/tasks", { token: forged })).body.detail);
    expect(JSON.stringify(r.body)).not.toContain(expired);
  });

  it("lets a valid token through, case-insensitively on the scheme", async () => {
    const token = await t.login("ada@acme.test");
    expect((await t.request("GET", "/tasks", { token })).status).toBe(200);
    expect((await t.request("GET", "/tasks", { headers: { authorization: `bearer ${token}` } })).status).toBe(200);
  });

  it("answers an unknown path 404 with or without a token, and one below a resource 401 without", async () => {
    // resc authenticates the resources' routes only (docs/access.md); the public /openapi.json lists them anyway.
    const token = await t.login("ada@acme.test");
    const anonymous = await t.request("GET", "/nowhere");
    const r = await t.request("GET", "/nowhere", { token });
    for (const answer of [anonymous, r]) {
      expect(answer.status).toBe(404);
      expect(answer.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(anonymous.body).toEqual(r.body);
    expectUnauthorized(await t.request("GET", "/tasks/1/nowhere"), false);
  });

  it("serves the API description without a token, login and 401s included", async () => {
    const doc = await t.request("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.info).toMatchObject({ title: "Task Tracker", version: "1.4.0" });
    expect(doc.body.paths["/auth/login"].post).toMatchObject({ operationId: "login", security: [] });
    expect(doc.body.paths["/tasks"].get.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
    expect(doc.body.components.responses.Unauthorized).toBeDefined();
    expect(doc.body.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    const page = await t.request("GET", "/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect((await t.request("GET", "/docs/init.js")).status).toBe(200);
    expect((await t.request("POST", "/openapi.json", { body: {} })).status).toBe(404);
  });

  it("logs one line per request, without the token", async () => {
    const token = await t.login("ada@acme.test");
    await t.request("GET", "/lists?sort=position", { token });
    expect(t.logs).toContainEqual(expect.stringMatching(/^GET \/lists\?sort=position 200 \d+ms$/));
    expect(t.logs.some((l) => l.includes(token))).toBe(false);
    await t.request("GET", `/tasks?access_token=${token}&status=todo`);
    expect(t.logs).toContainEqual(expect.stringMatching(/^GET \/tasks\?access_token=REDACTED&status=todo 401 \d+ms$/));
    expect(t.logs.some((l) => l.includes(token.split(".")[2]))).toBe(false);
  });
});
