/**
 * The second part of `npm run bench:access` (bench/access.ts): the Node CPU
 * a request spends verifying its bearer token (docs/decisions/1367-access-rules.md,
 * "Authentication"), per algorithm, measured in this process with
 * `process.cpuUsage()` (every thread of the process: WebCrypto's jobs run on
 * libuv's pool).
 *
 * The read by id of the declared variant (bench/access-service.ts) is sent
 * through the bare API app's `fetch` (no sockets), one at a time and ten at
 * a time, with an HS256 token (the secret from an environment variable),
 * with an RS256 and an ES256 token whose keys come from a JWK set served by
 * a local HTTP server through the real remote path (`jwks_url`, warm cache),
 * and without a token (the principal set by the stand-in middleware, as in
 * the first part); the CPU a token adds is the difference with the same app
 * without one. Beside them, what verifying alone costs at each layer, one
 * call at a time, back to back: the signature with `node:crypto`'s
 * synchronous `verify` (OpenSSL, the floor), WebCrypto's `subtle.verify`
 * (which jose calls, and which runs on libuv's thread pool), jose's
 * `jwtVerify` with the key already imported, jose through the JWK set (or
 * given the secret's bytes, which it imports for every token), and resc's
 * `Authenticator.verify`. Every pass measures everything once, in an order
 * that turns from pass to pass; the first pass is not counted.
 */
import { createHmac, createPublicKey, timingSafeEqual, verify as cryptoVerify, type KeyObject } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK } from "jose";
import type { Hono } from "hono";
import type { Executor } from "../runtime/exec/executor.js";
import type { JwtAlgorithm, JwtDescriptor, ServiceDescriptor } from "../runtime/descriptor.js";
import { createAuthenticator, type Authenticator } from "../runtime/auth/verify.js";
import { BENCH_ORG, BENCH_PRINCIPAL, bearerApp, benchAuth } from "./access-service.js";
import { median } from "./report.js";

/** Options of {@link measureVerification}. */
export interface VerificationOptions {
  /** The compiled tickets descriptor, without `auth` or `access`. */
  service: ServiceDescriptor;
  /** The loaded database (bench/access.ts). */
  db: Executor;
  /** A ticket of the bench org: the read by id sent. */
  readId: string;
  /** Requests (and verifications) per measurement. */
  requests: number;
  /** Passes over every measurement, after one that is not counted. */
  passes: number;
  /** The numbers of requests in flight at once each request is measured with, fewest first. */
  concurrency: number[];
  log: (line: string) => void;
}

const ISSUER = "bench-idp";
const AUDIENCE = "tickets";
const SECRET_ENV = "BENCH_JWT_SECRET";
/** 48 characters: longer than HS256's 32-byte minimum. */
const SECRET = "bench-access-secret-0123456789abcdef-0123456789ab";

/** One measurement: a label, and the work of one request or verification. */
interface Measure {
  group: string;
  label: string;
  /** Calls in flight at once. */
  concurrency: number;
  run: () => Promise<unknown>;
}

/** CPU µs per call of `run`, `count` calls with `concurrency` in flight. */
async function cpuPerCall(run: () => Promise<unknown>, count: number, concurrency: number): Promise<number> {
  let left = count;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await run();
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** A key pair of `alg`, its public JWK (with `kid` and `alg`) and its public key as a `KeyObject`. */
async function keyPair(alg: "RS256" | "ES256", kid: string) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return { publicKey, privateKey, jwk, keyObject: createPublicKey({ key: jwk as never, format: "jwk" }) };
}

/** A token of the bench principal, valid for two hours. */
function token(alg: JwtAlgorithm, key: CryptoKey | Uint8Array, kid?: string): Promise<string> {
  return new SignJWT({ role: "member", org: BENCH_ORG })
    .setProtectedHeader(kid ? { alg, kid } : { alg })
    .setSubject(BENCH_PRINCIPAL.subject)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(key);
}

/** The signature check alone with node:crypto (OpenSSL): what any library must spend at least. */
function signatureAlone(jws: string, alg: JwtAlgorithm, key: KeyObject | Uint8Array): () => Promise<boolean> {
  const dot = jws.lastIndexOf(".");
  const input = Buffer.from(jws.slice(0, dot));
  const signature = Buffer.from(jws.slice(dot + 1), "base64url");
  if (key instanceof Uint8Array)
    return async () => timingSafeEqual(createHmac("sha256", key).update(input).digest(), signature);
  const k = alg === "ES256" ? { key, dsaEncoding: "ieee-p1363" as const } : key;
  return async () => cryptoVerify("sha256", input, k, signature);
}

/** A GET of `path` through `app` in process, its body read; throws unless it answers 200. */
function requester(app: Hono, path: string, authorization?: string): () => Promise<string> {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  return async () => {
    const res = await app.fetch(new Request(`http://127.0.0.1${path}`, { headers }));
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text.slice(0, 200)}`);
    return text;
  };
}

/** A local JWK set server on 127.0.0.1, counting its fetches. */
async function jwksServer(keys: JWK[]): Promise<{ url: string; fetches: () => number; close: () => Promise<void> }> {
  let fetches = 0;
  const body = JSON.stringify({ keys });
  const server: Server = createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    fetches: () => fetches,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** `median (min–max)` of `xs`, with `digits` decimals. */
function spread(xs: readonly number[], digits = 0): string {
  return `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
}

/**
 * Runs the measurements and returns the report's section (Markdown).
 * @throws Error when a variant answers other than the request without a token does
 */
export async function measureVerification(o: VerificationOptions): Promise<string> {
  const rsa = await keyPair("RS256", "rs-1");
  const ec = await keyPair("ES256", "es-1");
  const jwks = await jwksServer([rsa.jwk, ec.jwk]);
  try {
    const secret = new TextEncoder().encode(SECRET);
    const env = { [SECRET_ENV]: SECRET };
    const base = { issuer: ISSUER, audience: AUDIENCE, clockToleranceSeconds: 30 };
    const hsJwt: JwtDescriptor = { ...base, algorithms: ["HS256"], secretEnv: SECRET_ENV };
    const setJwt: JwtDescriptor = { ...base, algorithms: ["RS256", "ES256"], jwksUrl: jwks.url };
    const tokens = {
      HS256: await token("HS256", secret),
      RS256: await token("RS256", rsa.privateKey, "rs-1"),
      ES256: await token("ES256", ec.privateKey, "es-1"),
    };
    const hs = bearerApp(o.service, o.db, hsJwt, { env });
    const set = bearerApp(o.service, o.db, setJwt);
    // The same apps verifying every token: a client that sends a new token on every request.
    const hsEvery = bearerApp(o.service, o.db, hsJwt, { env, verifiedMaxAgeSeconds: 0 });
    const setEvery = bearerApp(o.service, o.db, setJwt, { verifiedMaxAgeSeconds: 0 });
    for (const m of [hs.mounted, set.mounted, hsEvery.mounted, setEvery.mounted])
      if (!m.ok) throw new Error(m.errors.map((e) => `${e.resource}: ${e.message}`).join("\n"));
    const hsAuth: Authenticator = createAuthenticator({ auth: benchAuth(hsJwt), env });
    const setAuth: Authenticator = createAuthenticator({ auth: benchAuth(setJwt) });
    const hsEveryAuth: Authenticator = createAuthenticator({ auth: benchAuth(hsJwt), env, verifiedMaxAgeSeconds: 0 });
    const setEveryAuth: Authenticator = createAuthenticator({ auth: benchAuth(setJwt), verifiedMaxAgeSeconds: 0 });
    const localSet = createLocalJWKSet({ keys: [rsa.jwk, ec.jwk] });
    const options = {
      algorithms: ["HS256", "RS256", "ES256"],
      issuer: ISSUER,
      audience: AUDIENCE,
      requiredClaims: ["exp"],
    };
    const path = `/tickets/${o.readId}`;
    const bearer = (t: string): string => `Bearer ${t}`;
    const requests = (label: string, app: Hono, authorization?: string): Measure[] =>
      o.concurrency.map((c) => ({
        group: `request ${c}`,
        label,
        concurrency: c,
        run: requester(app, path, authorization),
      }));
    const alone = (group: string, label: string, run: () => Promise<unknown>): Measure => ({
      group,
      label,
      concurrency: 1,
      run,
    });
    const hmacKey = crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    const webCrypto = (
      jws: string,
      algorithm: AlgorithmIdentifier | EcdsaParams,
      key: Promise<CryptoKey> | CryptoKey,
    ) => {
      const dot = jws.lastIndexOf(".");
      const input = new TextEncoder().encode(jws.slice(0, dot));
      const signature = Buffer.from(jws.slice(dot + 1), "base64url");
      return async () => crypto.subtle.verify(algorithm, await key, signature, input);
    };
    const measures: Measure[] = [
      ...requests("HS256 app, no token", hs.app),
      ...requests("HS256", hs.app, bearer(tokens.HS256)),
      ...requests("JWKS app, no token", set.app),
      ...requests("RS256", set.app, bearer(tokens.RS256)),
      ...requests("ES256", set.app, bearer(tokens.ES256)),
      ...requests("HS256 every token", hsEvery.app, bearer(tokens.HS256)),
      ...requests("RS256 every token", setEvery.app, bearer(tokens.RS256)),
      ...requests("ES256 every token", setEvery.app, bearer(tokens.ES256)),
      alone("signature", "HS256", signatureAlone(tokens.HS256, "HS256", secret)),
      alone("signature", "RS256", signatureAlone(tokens.RS256, "RS256", rsa.keyObject)),
      alone("signature", "ES256", signatureAlone(tokens.ES256, "ES256", ec.keyObject)),
      alone("webcrypto", "HS256", webCrypto(tokens.HS256, "HMAC", hmacKey)),
      alone("webcrypto", "RS256", webCrypto(tokens.RS256, "RSASSA-PKCS1-v1_5", rsa.publicKey)),
      alone("webcrypto", "ES256", webCrypto(tokens.ES256, { name: "ECDSA", hash: "SHA-256" }, ec.publicKey)),
      alone("jose key", "HS256", async () => jwtVerify(tokens.HS256, await hmacKey, options)),
      alone("jose key", "RS256", () => jwtVerify(tokens.RS256, rsa.publicKey, options)),
      alone("jose key", "ES256", () => jwtVerify(tokens.ES256, ec.publicKey, options)),
      alone("jose bytes or set", "HS256", () => jwtVerify(tokens.HS256, secret, options)),
      alone("jose bytes or set", "RS256", () => jwtVerify(tokens.RS256, localSet, options)),
      alone("jose bytes or set", "ES256", () => jwtVerify(tokens.ES256, localSet, options)),
      alone("authenticator", "HS256", () => hsAuth.verify(tokens.HS256)),
      alone("authenticator", "RS256", () => setAuth.verify(tokens.RS256)),
      alone("authenticator", "ES256", () => setAuth.verify(tokens.ES256)),
      alone("authenticator every token", "HS256", () => hsEveryAuth.verify(tokens.HS256)),
      alone("authenticator every token", "RS256", () => setEveryAuth.verify(tokens.RS256)),
      alone("authenticator every token", "ES256", () => setEveryAuth.verify(tokens.ES256)),
    ];
    // Every request answers what the request without a token answers: the same principal, the same row.
    const expected = await requester(set.app, path)();
    for (const m of measures.filter((m) => m.group.startsWith("request "))) {
      const body = String(await m.run());
      if (body !== expected)
        throw new Error(`${m.label}: answered ${body.slice(0, 200)}, not ${expected.slice(0, 200)}`);
    }
    for (const a of ["HS256", "RS256", "ES256"] as const) {
      const p = await (a === "HS256" ? hsAuth : setAuth).verify(tokens[a]);
      if (p.subject !== BENCH_PRINCIPAL.subject || p.claims.org !== BENCH_ORG) throw new Error(`${a}: wrong principal`);
    }
    const fetchesBefore = jwks.fetches();
    const samples = new Map<Measure, number[]>(measures.map((m) => [m, []]));
    for (let pass = 0; pass <= o.passes; pass++) {
      const shift = pass % measures.length;
      for (const m of [...measures.slice(shift), ...measures.slice(0, shift)]) {
        const us = await cpuPerCall(m.run, o.requests, m.concurrency);
        if (pass > 0) samples.get(m)!.push(us);
      }
      o.log(pass === 0 ? "jwt: warm-up pass done" : `jwt: pass ${pass} of ${o.passes} done`);
    }
    const fetchesDuring = jwks.fetches() - fetchesBefore;
    const of = (group: string, label: string): number[] =>
      samples.get(measures.find((m) => m.group === group && m.label === label)!)!;
    const added = (c: number, label: string, without: string): number[] =>
      of(`request ${c}`, label).map((us, i) => us - of(`request ${c}`, without)[i]!);
    const [few, many] = [o.concurrency[0]!, o.concurrency[o.concurrency.length - 1]!];
    const lines = [
      `Node CPU µs per request or call: the median of ${o.passes} passes of ${o.requests} each (min–max in parentheses), \`process.cpuUsage()\` of the benchmark's process. ` +
        `Requests ${o.concurrency.join(" and ")} at a time; verification alone one at a time, back to back.`,
      "",
      `| algorithm | added per request, ${few} in flight | added per request, ${many} in flight | added, every token verified, ${few} / ${many} in flight | request with token / without, ${few} / ${many} in flight | resc's verify, cached / every token | jose with the bytes / the JWK set | jose, key imported | WebCrypto verify alone | signature alone (node:crypto) |`,
      "|---|---:|---:|---|---|---|---:|---:|---:|---:|",
    ];
    for (const a of ["HS256", "RS256", "ES256"] as const) {
      const without = a === "HS256" ? "HS256 app, no token" : "JWKS app, no token";
      const pair = (c: number): string =>
        `${median(of(`request ${c}`, a)).toFixed(0)} / ${median(of(`request ${c}`, without)).toFixed(0)}`;
      lines.push(
        `| ${a}${a === "HS256" ? " (secret)" : " (JWK set)"} | ${spread(added(few, a, without), 1)} | ${spread(added(many, a, without), 1)} | ` +
          `${spread(added(few, `${a} every token`, without), 1)} / ${spread(added(many, `${a} every token`, without), 1)} | ` +
          `${pair(few)}; ${pair(many)} | ${spread(of("authenticator", a), 1)} / ${spread(of("authenticator every token", a), 1)} | ${spread(of("jose bytes or set", a), 1)} | ` +
          `${spread(of("jose key", a), 1)} | ${spread(of("webcrypto", a), 1)} | ${spread(of("signature", a), 1)} |`,
      );
    }
    lines.push(
      "",
      `The request: \`GET ${path}\` of the declared variant through the bare API app's \`fetch\` (no sockets), with \`Authorization: Bearer …\`, ` +
        `against the same app without a token (the stand-in middleware sets the same principal); ` +
        `"added per request" sends the same token every time, as a client does until its token expires, so it is verified once and then found in the cache of verified tokens (docs/decisions/1374-verified-token-cache.md); ` +
        `"every token verified" is the same app with that cache off (\`verifiedMaxAgeSeconds: 0\`), what a client sending a new token on every request costs. ` +
        `"jose with the bytes / the JWK set": \`jwtVerify\` given the secret's bytes (HS256; jose imports them again for every token, as resc did until it imported the secret once) or through \`createLocalJWKSet\` (RS256, ES256); ` +
        `"resc's verify": \`createAuthenticator(…).verify\`, for RS256 and ES256 through the remote JWK set (\`jwks_url\` on a local HTTP server); ` +
        `"WebCrypto verify alone": \`crypto.subtle.verify\` with the imported key, which runs on libuv's thread pool; "signature alone": \`node:crypto\`'s synchronous \`verify\` (HMAC and \`timingSafeEqual\` for HS256). ` +
        `The key set was fetched ${fetchesDuring} times during the passes (${fetchesBefore} before them: the cache stayed warm).`,
    );
    return lines.join("\n");
  } finally {
    await jwks.close();
  }
}
