/**
 * The principals of tokens already verified, kept so that a client sending
 * the same bearer token on every request pays for its signature once
 * (docs/decisions/1374-verified-token-cache.md). A token is looked up by its
 * whole text: only the exact token verified before is ever answered from
 * here, and only while jose would still accept it (before `exp` plus the
 * clock tolerance) and at most {@link VERIFIED_MAX_AGE_SECONDS} after it was
 * verified, so a key withdrawn from a key set stops being accepted about as
 * soon as it would without the cache. Refused tokens are never kept.
 */
import { LRUCache } from "lru-cache";
import type { Principal } from "./principal.js";

/**
 * The longest a verified token is answered from the cache, in seconds after
 * its verification; a key set cached for less (`maxAgeSeconds`) lowers it.
 */
export const VERIFIED_MAX_AGE_SECONDS = 60;

/**
 * The bytes of token text kept at most (4 MiB): about 4,000 typical
 * 1 KiB tokens. An entry counts its token's length plus a fixed
 * {@link ENTRY_OVERHEAD_BYTES} for the principal.
 */
export const VERIFIED_MAX_BYTES = 4 * 1024 * 1024;

/** What an entry counts beyond its token's text, in bytes: the principal and the cache's own bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 512;

/** One verified token: its principal, and until when (milliseconds since the epoch) it may be answered. */
interface Entry {
  principal: Principal;
  untilMs: number;
}

/** Options of {@link verifiedTokens}. */
export interface VerifiedTokensOptions {
  /** jose's clock tolerance, in seconds: a token is accepted until `exp` plus this. */
  clockToleranceSeconds: number;
  /** The longest an entry lives, in seconds; default {@link VERIFIED_MAX_AGE_SECONDS}. 0 keeps nothing. */
  maxAgeSeconds?: number;
  /** Bytes kept at most; default {@link VERIFIED_MAX_BYTES}. */
  maxBytes?: number;
  /** The clock, milliseconds since the epoch; default `Date.now` (the clock jose judges `exp` by). */
  now?: () => number;
}

/** The cache of one authenticator: {@link VerifiedTokens.get} before verifying, {@link VerifiedTokens.set} after. */
export interface VerifiedTokens {
  /** The principal `token` was verified as, while it is still acceptable; else undefined. */
  get(token: string): Principal | undefined;
  /** Keeps `principal` as what `token` verified as (a principal without `expiresAt` is not kept). */
  set(token: string, principal: Principal): void;
}

/**
 * A bounded least-recently-used cache of verified tokens (lru-cache), judged
 * by the same clock as jose's `exp` check. The principal kept is frozen, as
 * every request holding the same token shares it.
 */
export function verifiedTokens(options: VerifiedTokensOptions): VerifiedTokens {
  const maxAgeMs = Math.max(0, (options.maxAgeSeconds ?? VERIFIED_MAX_AGE_SECONDS) * 1000);
  const toleranceMs = options.clockToleranceSeconds * 1000;
  const now = options.now ?? Date.now;
  if (maxAgeMs === 0) return { get: () => undefined, set: () => {} };
  const cache = new LRUCache<string, Entry>({
    maxSize: options.maxBytes ?? VERIFIED_MAX_BYTES,
    sizeCalculation: (_entry, token) => token.length + ENTRY_OVERHEAD_BYTES,
  });
  return {
    get(token) {
      const entry = cache.get(token);
      if (entry === undefined) return undefined;
      if (now() < entry.untilMs) return entry.principal;
      cache.delete(token);
      return undefined;
    },
    set(token, principal) {
      if (principal.expiresAt === undefined) return;
      const at = now();
      // jose refuses a token once now - tolerance >= exp: accepted while now < exp + tolerance.
      const untilMs = Math.min(principal.expiresAt * 1000 + toleranceMs, at + maxAgeMs);
      if (untilMs <= at) return;
      cache.set(token, { principal: Object.freeze(principal), untilMs });
    },
  };
}
