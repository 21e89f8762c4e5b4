/**
 * Positions as a client sees them: sealed (docs/decisions/1365-opaque-feed-positions.md).
 * A {@link Position} is two counters every table and tenant share, so the
 * distance between two of them says how many changes anyone captured in
 * between. On the wire (an SSE `id`, a `webhook-id`) the pair is
 * encrypted and authenticated under a key every node shares (the
 * `feed-positions` secret, runtime/secrets.ts): the text orders nothing
 * and counts nothing, only a node can open it, and a text no node sealed
 * is refused.
 *
 * The sealed form is 32 base64url characters: the pair as 16 bytes (each
 * counter unsigned 64-bit, big-endian) encrypted with AES-256 as one block
 * (a keyed permutation: the same position always seals to the same text,
 * so a resend of an event keeps its id), then the first 8 bytes of an
 * HMAC-SHA-256 of that block. Both keys are derived from the secret with
 * HKDF, one per use.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import type { Position } from "./position.js";

/** Bytes of the encrypted pair, and of the tag after it. */
const BLOCK = 16;
const TAG = 8;

/** What a text a client sent back turned out to be. */
export type OpenedPosition =
  | { kind: "sealed"; position: Position }
  /** `<xid>.<id>`, the plain form earlier versions sent: no longer taken as a position (decision 1365). */
  | { kind: "plain" }
  | { kind: "invalid" };

const PLAIN = /^(\d{1,20})\.(\d{1,20})$/;
const SEALED = /^[A-Za-z0-9_-]{32}$/;

/** Seals and opens positions under one shared secret; see the module comment. */
export class PositionSeal {
  private readonly cipherKey: Buffer;
  private readonly tagKey: Buffer;

  /** @param secret the shared secret's bytes (at least 32) */
  constructor(secret: Uint8Array) {
    this.cipherKey = Buffer.from(hkdfSync("sha256", secret, "", "resc feed position: cipher", 32));
    this.tagKey = Buffer.from(hkdfSync("sha256", secret, "", "resc feed position: tag", 32));
  }

  /** The wire text of `p`: 32 base64url characters, the same for the same position on every node. */
  seal(p: Position): string {
    const plain = Buffer.alloc(BLOCK);
    plain.writeBigUInt64BE(BigInt(p.xid), 0);
    plain.writeBigUInt64BE(BigInt(p.id), 8);
    const cipher = createCipheriv("aes-256-ecb", this.cipherKey, null).setAutoPadding(false);
    const block = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([block, this.tag(block)]).toString("base64url");
  }

  /** What `text` is: a position a node sealed, the plain form of earlier versions, or neither (never thrown). */
  open(text: string): OpenedPosition {
    const t = text.trim();
    const plain = PLAIN.exec(t);
    // Only a pair an earlier version could have sent: a transaction id of 64 bits, an outbox id of 63.
    if (plain)
      return BigInt(plain[1]!) < 2n ** 64n && BigInt(plain[2]!) < 2n ** 63n ? { kind: "plain" } : { kind: "invalid" };
    if (!SEALED.test(t)) return { kind: "invalid" };
    const bytes = Buffer.from(t, "base64url");
    if (bytes.length !== BLOCK + TAG) return { kind: "invalid" };
    const block = bytes.subarray(0, BLOCK);
    if (!timingSafeEqual(this.tag(block), bytes.subarray(BLOCK))) return { kind: "invalid" };
    const decipher = createDecipheriv("aes-256-ecb", this.cipherKey, null).setAutoPadding(false);
    const pair = Buffer.concat([decipher.update(block), decipher.final()]);
    const position = { xid: pair.readBigUInt64BE(0).toString(), id: pair.readBigUInt64BE(8).toString() };
    return { kind: "sealed", position };
  }

  private tag(block: Buffer): Buffer {
    return createHmac("sha256", this.tagKey).update(block).digest().subarray(0, TAG);
  }
}
