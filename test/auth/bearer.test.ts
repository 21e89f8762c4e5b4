/**
 * Bearer authentication of served resources over HS256 tokens minted with
 * jose (docs/decisions/1367-access-rules.md, "Authentication"), through a
 * Hono app mounted with `mountService` on the embedded database:
 *
 * - accepted: the principal's subject, roles from a nested claim path and
 *   from an array (undeclared roles dropped), the default role, declared
 *   claims decoded by type, the anonymous role without a token, the clock
 *   tolerance honoured for `exp` and `nbf`; a principal a hand-written
 *   middleware set is left be;
 * - refused, each a 401 with `WWW-Authenticate: Bearer … error="invalid_token"`
 *   and a body saying nothing of why: `alg: none`, a tampered payload, a
 *   wrong secret, expired, not yet valid, wrong `iss`, wrong `aud`, no `exp`,
 *   no `sub`, a missing or mistyped required claim, no role and no default,
 *   a development token outside development, a malformed header, a 64 KiB
 *   token (refused before verifying); a token only in the query string is
 *   never read;
 * - only the resources' routes are guarded: a hand-written route and the
 *   OpenAPI document stay public.
 */
import http from "node:http";
import type { MiddlewareHandler } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setPrincipal } from "../../runtime/auth/principal.js";
import type { TestDatabase } from "../support/db.js";
import { serveService } from "../support/sse.js";
import {
  authWith,
  b64,
  claim,
  expectChallenged,
  expectRefused,
  hsSettings,
  hsToken,
  notesDatabase,
  notesService,
  now,
  SECRET,
  SECRET_ENV,
  serveNotes,
  type NotesApp,
} from "./support.js";
import type { TokenRefused } from "../../runtime/auth/errors.js";

const ORG = "0F0E0D0C-0B0A-4908-8706-050403020100";
const ENV = { [SECRET_ENV]: SECRET };

let db: TestDatabase;
/** Roles at `app_metadata.roles`, default role member, claims org (uuid), team (text?), level (integer), big (bigint). */
let notes: NotesApp;
/** What the log callback received. */
const refusals: TokenRefused[] = [];

beforeAll(async () => {
  db = await notesDatabase("auth_bearer");
  const { service } = notesService(
    authWith({
      roleClaim: ["app_metadata", "roles"],
      defaultRole: "member",
      claims: [
        claim("org", "uuid"),
        claim("team", "text", { nullable: true, path: ["app_metadata", "team"] }),
        claim("level", "integer", { nullable: true }),
        claim("big", "bigint", { nullable: true }),
        claim("tags", "text", { nullable: true, array: true }),
        claim("tier", "enum", { nullable: true, enumValues: ["free", "paid"] }),
        claim("beta", "boolean", { nullable: true }),
      ],
    }),
  );
  notes = serveNotes(service, db, { auth: { env: ENV, log: (r) => refusals.push(r as TokenRefused) } });
});
afterAll(async () => {
  await db?.drop();
});

describe("accepted tokens", () => {
  it("make the principal: subject, roles from a nested path, declared claims decoded", async () => {
    const token = await hsToken({
      org: ORG,
      app_metadata: { roles: ["admin", "superuser", "member", "admin"], team: "red" },
      level: "7",
      big: "9223372036854775807",
      tags: ["a", "b"],
      tier: "paid",
      beta: true,
    });
    const r = await notes.list(token);
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([expect.objectContaining({ owner: "ada" })]);
    expect(notes.last()).toEqual({
      subject: "ada",
      roles: ["admin", "member"],
      claims: {
        sub: "ada",
        org: ORG.toLowerCase(),
        team: "red",
        level: 7,
        big: "9223372036854775807",
        tags: ["a", "b"],
        tier: "paid",
        beta: true,
      },
      expiresAt: expect.any(Number),
    });
  });

  it("gives a token naming no declared role the default role; optional claims absent are null", async () => {
    for (const roles of [undefined, [], ["superuser"]]) {
      const r = await notes.list(await hsToken({ org: ORG, app_metadata: roles === undefined ? {} : { roles } }));
      expect(r.status).toBe(200);
      expect(notes.last()).toMatchObject({
        roles: ["member"],
        claims: { sub: "ada", org: ORG.toLowerCase(), team: null, level: null, big: null, tags: null },
      });
    }
  });

  it("reads a role given as a string", async () => {
    expect((await notes.list(await hsToken({ org: ORG, app_metadata: { roles: "admin" } }))).status).toBe(200);
    expect(notes.last()?.roles).toEqual(["admin"]);
  });

  it("honours the clock tolerance for exp and nbf, and refuses past it", async () => {
    const within = [{ exp: now() - 20 }, { nbf: now() + 20 }];
    for (const p of within) expect((await notes.list(await hsToken({ org: ORG, ...p }))).status).toBe(200);
    for (const p of [{ exp: now() - 40 }, { nbf: now() + 40 }]) {
      const token = await hsToken({ org: ORG, ...p });
      expectRefused(await notes.list(token), token);
    }
    expect(refusals.slice(-2).map((r) => r.reason)).toEqual(["expired", "not-yet-valid"]);
  });

  it("accepts the scheme in any case and writes with the principal", async () => {
    const token = await hsToken({ org: ORG });
    const r = await notes.send("POST", "/notes", { authorization: `bearer ${token}` }, { owner: "ada", body: "two" });
    expect(r.status).toBe(201);
  });
});

describe("refused tokens", () => {
  /** The refusals, each a token and the reason the log must give. */
  const cases: [string, () => Promise<string>, TokenRefused["reason"]][] = [
    [
      "alg: none",
      async () => `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: "ada", org: ORG, exp: now() + 60 })}.`,
      "algorithm",
    ],
    [
      "a tampered payload",
      async () => {
        const [h, , s] = (await hsToken({ org: ORG })).split(".");
        return `${h}.${b64({ sub: "root", role: "admin", org: ORG, iss: "notes-idp", aud: "notes", exp: now() + 60 })}.${s}`;
      },
      "signature",
    ],
    ["another secret", () => hsToken({ org: ORG }, "x".repeat(64)), "signature"],
    ["HS512 where only HS256 is allowed", () => hsToken({ org: ORG }, SECRET, "HS512"), "algorithm"],
    ["expired", () => hsToken({ org: ORG, exp: now() - 3600 }), "expired"],
    ["not yet valid", () => hsToken({ org: ORG, nbf: now() + 3600 }), "not-yet-valid"],
    ["a wrong iss", () => hsToken({ org: ORG, iss: "someone-else" }), "issuer"],
    ["no iss", () => hsToken({ org: ORG, iss: undefined }), "issuer"],
    ["a wrong aud", () => hsToken({ org: ORG, aud: "other-api" }), "audience"],
    ["no exp", () => hsToken({ org: ORG, exp: undefined }), "claims"],
    ["no sub", () => hsToken({ org: ORG, sub: undefined }), "subject"],
    ["a numeric sub", () => hsToken({ org: ORG, sub: 42 }), "subject"],
    ["a missing required claim", () => hsToken({}), "claims"],
    ["a mistyped claim (not a uuid)", () => hsToken({ org: "not-a-uuid" }), "claims"],
    ["a mistyped claim (integer out of range)", () => hsToken({ org: ORG, level: 2 ** 40 }), "claims"],
    ["a mistyped claim (an array element)", () => hsToken({ org: ORG, tags: ["a", 1] }), "claims"],
    ["a mistyped claim (enum value)", () => hsToken({ org: ORG, tier: "gold" }), "claims"],
    ["a mistyped role claim", () => hsToken({ org: ORG, app_metadata: { roles: [1] } }), "role"],
    ["a development token", () => hsToken({ org: ORG, resc_dev: true }), "development"],
  ];
  for (const [what, make, reason] of cases) {
    it(`refuses ${what}, saying why only in the log`, async () => {
      const token = await make();
      const before = refusals.length;
      expectRefused(await notes.list(token), token);
      expect(refusals.slice(before).map((r) => r.reason)).toEqual([reason]);
      expect(notes.last()).toBeUndefined();
    });
  }

  it("refuses malformed Authorization headers", async () => {
    for (const header of ["Basic YWRhOnNlY3JldA==", "Bearer", "Bearer ", "Bearer a b", "Bearer a,b", "Token abc", ""]) {
      expectRefused(await notes.send("GET", "/notes", { authorization: header }));
    }
  });

  it("refuses a 64 KiB token at once, without verifying it", async () => {
    const token = `${b64({ alg: "HS256" })}.${"A".repeat(64 * 1024)}.sig`;
    const before = refusals.length;
    const started = performance.now();
    expectRefused(await notes.list(token));
    expect(performance.now() - started).toBeLessThan(200);
    expect(refusals.slice(before).map((r) => [r.reason, r.message])).toEqual([
      ["malformed", "the Authorization header is longer than 16384 bytes"],
    ]);
  });

  it("never reads a token in the query string", async () => {
    const token = await hsToken({ org: ORG });
    expectChallenged(await notes.send("GET", `/notes?access_token=${token}`));
    expect(notes.last()).toBeUndefined();
  });

  it("guards every route of the resource, and only those", async () => {
    expectChallenged(await notes.send("GET", "/notes"));
    expectChallenged(await notes.send("GET", "/notes/1"));
    expectChallenged(await notes.send("POST", "/notes", {}, { owner: "x", body: "y" }));
    expectChallenged(await notes.send("PATCH", "/notes/1", {}, { body: "y" }));
    expectChallenged(await notes.send("DELETE", "/notes/1"));
    expect((await notes.send("POST", "/auth/login")).status).toBe(200);
    expect((await notes.send("GET", "/openapi.json")).status).toBe(200);
    const challenge = (await notes.send("GET", "/notes")).headers.get("www-authenticate");
    expect(challenge).toBe('Bearer realm="Notes"');
  });
});

describe("anonymous role", () => {
  let anon: NotesApp;
  beforeAll(() => {
    const { service } = notesService(
      authWith({ roles: ["anon", "member"], anonymous: "anon", claims: [claim("org", "uuid")] }),
    );
    anon = serveNotes(service, db, { auth: { env: ENV } });
  });

  it("admits a request without a token as the anonymous role, every claim null", async () => {
    expect((await anon.list()).status).toBe(200);
    expect(anon.last()).toEqual({ subject: "", roles: ["anon"], claims: { sub: null, org: null }, anonymous: true });
  });

  it("still refuses a bad token rather than falling back to anonymous", async () => {
    const token = await hsToken({ org: ORG, exp: now() - 3600 });
    expectRefused(await anon.list(token), token);
    expect(anon.last()).toBeUndefined();
  });

  it("refuses a token without a role when there is no default role", async () => {
    const token = await hsToken({ org: ORG, role: undefined });
    expectRefused(await anon.list(token), token);
  });
});

describe("the anonymous role not granted an operation", () => {
  let anon: NotesApp;
  beforeAll(() => {
    const { service } = notesService(
      authWith({ roles: ["anon", "reader", "member"], anonymous: "anon", claims: [claim("org", "uuid")] }),
    );
    // anon and reader list only; member does everything.
    const access = [
      { roles: ["anon", "reader"], ops: ["list"], rows: [], stamps: [], hide: [] },
      { roles: ["member"], ops: ["list", "read", "create", "update", "delete"], rows: [], stamps: [], hide: [] },
    ];
    anon = serveNotes({ ...service, tables: service.tables.map((t) => ({ ...t, access })) }, db, {
      auth: { env: ENV, realm: "Notes" },
    });
  });

  it("is a 401 with the bearer challenge, as a missing token is: sending one may mend it", async () => {
    expect((await anon.list()).status).toBe(200);
    for (const [method, path, body] of [
      ["GET", "/notes/1", undefined],
      ["POST", "/notes", { owner: "x", body: "y" }],
      ["PATCH", "/notes/1", { body: "y" }],
      ["DELETE", "/notes/1", undefined],
    ] as const) {
      const r = await anon.send(method, path, {}, body);
      expectChallenged(r);
      expect(r.headers.get("www-authenticate"), `${method} ${path}`).toBe('Bearer realm="Notes"');
      expect(r.body.detail).toBe("This request needs a bearer token.");
    }
    expect(anon.last()?.anonymous).toBe(true);
  });

  it("stays a 403 for a verified caller whose roles are not granted it", async () => {
    const token = await hsToken({ org: ORG, role: "reader" });
    const r = await anon.send("POST", "/notes", { authorization: `Bearer ${token}` }, { owner: "x", body: "y" });
    expect(r.status).toBe(403);
    expect(r.body.type).toBe("/problems/forbidden");
    expect(r.headers.get("www-authenticate")).toBeNull();
    const member = await hsToken({ org: ORG, role: "member" });
    expect((await anon.send("GET", "/notes/1", { authorization: `Bearer ${member}` })).status).toBe(200);
  });
});

describe("several credentials", () => {
  /** Asserts the 400 of a request carrying more than one credential: never one of them used. */
  const expectSeveral = (r: { status: number; headers: Headers; body: any }): void => {
    expect(r.status).toBe(400);
    expect(r.headers.get("www-authenticate")).toBeNull();
    expect(r.body).toMatchObject({
      type: "/problems/invalid-header",
      errors: [{ location: "header.authorization" }],
    });
  };

  it("two Authorization headers, as Headers joins them, are a 400, even when both tokens are good", async () => {
    const good = await hsToken({ org: ORG });
    const other = await hsToken({ org: ORG, sub: "bob" });
    const res = await notes.app.request("/notes", {
      headers: [
        ["authorization", `Bearer ${good}`],
        ["authorization", `Bearer ${other}`],
      ],
    });
    expectSeveral({ status: res.status, headers: res.headers, body: await res.json() });
    expect(notes.last()).toBeUndefined();
  });

  it("one header listing two credentials is a 400; one credential with parameters or a comma is not", async () => {
    const good = await hsToken({ org: ORG });
    for (const header of [`Bearer ${good}, Bearer ${good}`, `Bearer ${good},Basic YWRhOnNlY3JldA==`]) {
      expectSeveral(await notes.send("GET", "/notes", { authorization: header }));
      expect(notes.last()).toBeUndefined();
    }
    for (const header of ['Digest username="ada", realm="notes"', "Bearer a,b", `Bearer ${good},`])
      expectRefused(await notes.send("GET", "/notes", { authorization: header }));
  });

  it("two Authorization header lines reaching Node are a 400: Node's parsed headers keep only the first", async () => {
    const good = await hsToken({ org: ORG });
    const { service } = notesService(authWith({ defaultRole: "member", claims: [claim("org", "uuid")] }));
    const served = await serveService(service, { db: db.executor, auth: { env: ENV } });
    try {
      const answer = (authorization: string[]): Promise<{ status: number; headers: Headers; body: any }> =>
        new Promise((resolve, reject) => {
          // An array value: Node sends each as its own `Authorization` line (its types say a string).
          const headers = { authorization } as unknown as http.OutgoingHttpHeaders;
          const req = http.request(`${served.url}/notes`, { headers }, (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (text += chunk));
            res.on("end", () => {
              const headers = new Headers();
              for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") headers.set(k, v);
              resolve({ status: res.statusCode!, headers, body: JSON.parse(text) });
            });
          });
          req.on("error", reject);
          req.end();
        });
      expect((await answer([`Bearer ${good}`])).status).toBe(200);
      expectSeveral(await answer([`Bearer ${good}`, `Bearer ${good}`]));
      expectSeveral(await answer([`Bearer ${good}`, "Bearer not-a-token"]));
    } finally {
      await served.close();
    }
  });
});

describe("composition", () => {
  it("leaves a principal a hand-written middleware set", async () => {
    const sessions: MiddlewareHandler = async (c, next) => {
      if (c.req.header("cookie") === "session=ada")
        setPrincipal(c, { subject: "ada", roles: ["member"], claims: { sub: "ada" } });
      await next();
    };
    const { service } = notesService(authWith());
    const app = serveNotes(service, db, { auth: { env: ENV } }, sessions);
    expect((await app.send("GET", "/notes", { cookie: "session=ada" })).status).toBe(200);
    expect(app.last()?.subject).toBe("ada");
    expectChallenged(await app.send("GET", "/notes"));
  });

  it("installs nothing with auth: false, or without an auth block", async () => {
    const { service } = notesService(authWith());
    // Without the built-in verification and with no middleware setting a principal, the declared rules
    // still admit nobody: secure by default (docs/decisions/1367-access-rules.md).
    const off = await serveNotes(service, db, { auth: false }).list();
    expect(off.status).toBe(401);
    expect(off.headers.get("www-authenticate")).toBe("Bearer");
    expect((await serveNotes(notesService(undefined).service, db).list()).status).toBe(200);
  });

  it("under a base path guards the prefixed routes", async () => {
    const { service } = notesService(authWith());
    const app = serveNotes(service, db, { auth: { env: ENV }, basePath: "/api" });
    expectChallenged(await app.send("GET", "/api/notes"));
    expect((await app.send("GET", "/api/notes", { authorization: `Bearer ${await hsToken()}` })).status).toBe(200);
  });

  it("refuses every token when the auth block has no jwt settings", async () => {
    const { service } = notesService(authWith({ jwt: undefined, roles: ["anon"], anonymous: "anon" }));
    const app = serveNotes(service, db);
    expect((await app.list()).status).toBe(200);
    const token = await hsToken();
    expectRefused(await app.list(token), token);
  });

  it("accepts a development token with development: true", async () => {
    const { service } = notesService(authWith({ jwt: hsSettings() }));
    const app = serveNotes(service, db, { auth: { env: ENV, development: true } });
    expect((await app.list(await hsToken({ resc_dev: true }))).status).toBe(200);
  });
});
