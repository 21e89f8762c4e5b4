/**
 * The cache of verified tokens (runtime/auth/verified.ts,
 * docs/decisions/1374-verified-token-cache.md): a token verified once is
 * answered from it only while jose would still accept it (before `exp` plus
 * the clock tolerance) and at most the cache's age after its verification;
 * refused tokens are never kept; the bytes it holds are bounded; and through
 * an authenticator, the same token gives the same (frozen) principal
 * without verifying again, until it expires, when it is refused as expired.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAuthenticator } from "../../runtime/auth/verify.js";
import { TokenRefused } from "../../runtime/auth/errors.js";
import type { Principal } from "../../runtime/auth/principal.js";
import { verifiedTokens } from "../../runtime/auth/verified.js";
import { authWith, hsSettings, hsToken, now, SECRET, SECRET_ENV } from "./support.js";

const ENV = { [SECRET_ENV]: SECRET };

/** A principal expiring at `exp` (seconds since the epoch). */
function principal(exp: number | undefined, subject = "ada"): Principal {
  return {
    subject,
    roles: ["member"],
    claims: { sub: subject },
    ...(exp !== undefined ? { expiresAt: exp } : {}),
  };
}

describe("verifiedTokens", () => {
  it("answers a kept token until exp plus the tolerance, never after", () => {
    let clock = 1_000_000_000_000;
    const cache = verifiedTokens({ clockToleranceSeconds: 5, maxAgeSeconds: 3600, now: () => clock });
    const p = principal(clock / 1000 + 10);
    cache.set("t", p);
    expect(cache.get("t")).toBe(p);
    clock += 14_999;
    expect(cache.get("t")).toBe(p);
    clock += 1;
    expect(cache.get("t")).toBeUndefined();
    clock -= 1; // an entry found stale is gone, even if the clock turns back
    expect(cache.get("t")).toBeUndefined();
  });

  it("answers a kept token at most its maximum age after it was kept", () => {
    let clock = 2_000_000_000_000;
    const cache = verifiedTokens({ clockToleranceSeconds: 0, maxAgeSeconds: 60, now: () => clock });
    cache.set("t", principal(clock / 1000 + 3600));
    clock += 59_999;
    expect(cache.get("t")?.subject).toBe("ada");
    clock += 1;
    expect(cache.get("t")).toBeUndefined();
  });

  it("keeps nothing without an expiry, already expired, or with a maximum age of 0", () => {
    const clock = 3_000_000_000_000;
    const cache = verifiedTokens({ clockToleranceSeconds: 0, now: () => clock });
    cache.set("no-exp", principal(undefined));
    cache.set("expired", principal(clock / 1000));
    expect(cache.get("no-exp")).toBeUndefined();
    expect(cache.get("expired")).toBeUndefined();
    const off = verifiedTokens({ clockToleranceSeconds: 0, maxAgeSeconds: 0, now: () => clock });
    off.set("t", principal(clock / 1000 + 100));
    expect(off.get("t")).toBeUndefined();
  });

  it("only answers the exact token kept", () => {
    const clock = 4_000_000_000_000;
    const cache = verifiedTokens({ clockToleranceSeconds: 0, now: () => clock });
    cache.set("aaaa.bbbb.cccc", principal(clock / 1000 + 100));
    expect(cache.get("aaaa.bbbb.cccd")).toBeUndefined();
    expect(cache.get("aaaa.bbbb.ccc")).toBeUndefined();
    expect(cache.get("aaaa.bbbb.cccc")?.subject).toBe("ada");
  });

  it("holds a bounded number of bytes, dropping the least recently used", () => {
    const clock = 5_000_000_000_000;
    // Each entry counts 1,000 characters plus 512: three fit in 5,000 bytes, a fourth drops the oldest.
    const cache = verifiedTokens({ clockToleranceSeconds: 0, maxBytes: 5000, now: () => clock });
    const token = (c: string): string => c.repeat(1000);
    for (const c of ["a", "b", "c"]) cache.set(token(c), principal(clock / 1000 + 100, c));
    expect(cache.get(token("a"))?.subject).toBe("a"); // now the most recently used
    cache.set(token("d"), principal(clock / 1000 + 100, "d"));
    expect(cache.get(token("b"))).toBeUndefined();
    expect(["a", "c", "d"].map((c) => cache.get(token(c))?.subject)).toEqual(["a", "c", "d"]);
  });

  it("freezes what it keeps, as every request with the token shares it", () => {
    const cache = verifiedTokens({ clockToleranceSeconds: 0 });
    const p = principal(now() + 100);
    cache.set("t", p);
    expect(Object.isFrozen(cache.get("t"))).toBe(true);
  });
});

describe("an authenticator with the cache", () => {
  afterEach(() => vi.useRealTimers());

  it("gives the same principal for the same token, another for another token", async () => {
    const auth = createAuthenticator({ auth: authWith(), env: ENV });
    const token = await hsToken();
    const first = await auth.verify(token);
    expect(await auth.verify(token)).toBe(first);
    const other = await auth.verify(await hsToken({ sub: "grace" }));
    expect(other).not.toBe(first);
    expect(other.subject).toBe("grace");
  });

  it("verifies every token again with a maximum age of 0", async () => {
    const auth = createAuthenticator({ auth: authWith(), env: ENV, verifiedMaxAgeSeconds: 0 });
    const token = await hsToken();
    const first = await auth.verify(token);
    const second = await auth.verify(token);
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
  });

  it("refuses a cached token as expired once exp plus the tolerance has passed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-06-01T00:00:00Z"));
    const auth = createAuthenticator({ auth: authWith({ jwt: hsSettings({ clockToleranceSeconds: 2 }) }), env: ENV });
    const token = await hsToken({ iat: now(), exp: now() + 10 });
    const first = await auth.verify(token);
    vi.setSystemTime(Date.now() + 11_000); // past exp, within the tolerance
    expect(await auth.verify(token)).toBe(first);
    vi.setSystemTime(Date.now() + 1_000); // exp + 2 s: jose refuses it, and so must the cache
    const refused = await auth.verify(token).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(TokenRefused);
    expect((refused as TokenRefused).reason).toBe("expired");
  });

  it("never keeps a refused token: a tampered one is refused every time", async () => {
    const auth = createAuthenticator({ auth: authWith(), env: ENV });
    const [h, p, s] = (await hsToken()).split(".");
    const tampered = `${h}.${p}.${s!.slice(0, -2)}${s!.endsWith("AA") ? "BB" : "AA"}`;
    for (let i = 0; i < 2; i++) await expect(auth.verify(tampered)).rejects.toBeInstanceOf(TokenRefused);
  });
});
