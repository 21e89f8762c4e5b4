/**
 * Password hashes of the tracker: scrypt (Node's `crypto.scrypt`), stored as
 * `scrypt$N$r$p$<salt hex>$<hash hex>` in `users.password_hash` (the format
 * of `examples/tracker/seed.sql`). Decisions: docs/decisions/0701-tracker-authentication.md.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** A parsed stored hash. */
interface StoredHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

/** Parameters of new hashes: the seed's, about 16 MiB and a few tens of milliseconds per check. */
const DEFAULT_PARAMS = { N: 16384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/**
 * Ceilings on stored parameters, so a corrupt or hostile row cannot make a
 * login allocate gigabytes: N up to 2^20, r up to 16, p up to 4.
 */
const MAX_N = 1 << 20;
const MAX_R = 16;
const MAX_P = 4;

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Reads a positive whole number written in decimal, or undefined. */
function whole(text: string | undefined, max: number): number | undefined {
  if (text === undefined || !/^[1-9][0-9]{0,7}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= max ? n : undefined;
}

function hex(text: string | undefined): Buffer | undefined {
  if (text === undefined || text.length === 0 || text.length % 2 !== 0 || !/^[0-9a-f]+$/i.test(text)) return undefined;
  return Buffer.from(text, "hex");
}

/** Parses a stored hash; undefined when it is not in the expected format or its parameters are out of bounds. */
function parseStored(stored: string): StoredHash | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return undefined;
  const N = whole(parts[1], MAX_N);
  const r = whole(parts[2], MAX_R);
  const p = whole(parts[3], MAX_P);
  const salt = hex(parts[4]);
  const hash = hex(parts[5]);
  // scrypt needs N to be a power of two greater than 1.
  if (N === undefined || N < 2 || (N & (N - 1)) !== 0 || r === undefined || p === undefined) return undefined;
  if (salt === undefined || hash === undefined || hash.length < 16 || hash.length > 64) return undefined;
  return { N, r, p, salt, hash };
}

/** Memory scrypt needs for these parameters (128·N·r bytes), with headroom, for `maxmem`. */
function maxmem(h: Pick<StoredHash, "N" | "r">): number {
  return 128 * h.N * h.r * 2 + 1024 * 1024;
}

/**
 * Hashes `password` with a fresh random salt and the default parameters.
 * @returns the stored form `scrypt$16384$8$1$<salt hex>$<hash hex>`
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(password, salt, KEY_BYTES, { ...DEFAULT_PARAMS, maxmem: maxmem(DEFAULT_PARAMS) });
  const { N, r, p } = DEFAULT_PARAMS;
  return `scrypt$${N}$${r}$${p}$${salt.toString("hex")}$${hash.toString("hex")}`;
}

/**
 * A hash of no one's password, checked when the email matches no user so
 * that an unknown email costs the same scrypt work as a wrong password and
 * response time does not tell which emails exist.
 */
const DECOY: StoredHash = {
  ...DEFAULT_PARAMS,
  salt: Buffer.alloc(SALT_BYTES, 0x5a),
  hash: Buffer.alloc(KEY_BYTES, 0xa5),
};

/**
 * Checks `password` against a stored hash, comparing in constant time.
 * `stored` undefined (no such user) still spends one scrypt computation and
 * answers false.
 * @returns false also when `stored` is not in the expected format (never throws for that)
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parseStored(stored);
  const h = parsed ?? DECOY;
  const derived = await scryptAsync(password, h.salt, h.hash.length, { N: h.N, r: h.r, p: h.p, maxmem: maxmem(h) });
  const same = timingSafeEqual(derived, h.hash);
  return parsed !== undefined && same;
}
