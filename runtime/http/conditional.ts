/**
 * Conditional requests (RFC 9110 §13; docs/decisions/1329-conditional-requests.md):
 * reading `If-Match` and `If-None-Match`, and the entity-tags resc sends.
 *
 * An item's tag is strong: the row's version tag (`md5` of its served
 * representation without expansions: computed by PostgreSQL for a write,
 * runtime/sql/row.ts, and by {@link rowVersionTag} from the same text for a
 * read) for a read without `expand`, a create and an update; a read with `expand`
 * is tagged by a hash of its body, since an expanded row changes with its
 * children too. Lists carry no tag.
 */
import { hash } from "node:crypto";

/** An entity-tag of a request header: its opaque text (without quotes) and whether it was weak (`W/`). */
export interface EntityTag {
  opaque: string;
  weak: boolean;
}

/** What an `If-Match` or `If-None-Match` header asks: any current row (`*`), or one of these tags. */
export type TagCondition = { any: true } | { any: false; tags: EntityTag[] };

/** `"…"` or `W/"…"`: the opaque text holds no `"` (RFC 9110 §8.8.3). */
const ENTITY_TAG = /^\s*(W\/)?"([^"]*)"\s*$/;

/**
 * The condition of an `If-Match` or `If-None-Match` header, or undefined
 * when the request has none. An entry that is not an entity-tag matches
 * nothing, so a malformed `If-Match` fails as a stale one would.
 */
export function parseTagCondition(header: string | undefined): TagCondition | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === "*") return { any: true };
  const tags: EntityTag[] = [];
  for (const part of header.split(",")) {
    const m = ENTITY_TAG.exec(part);
    if (m) tags.push({ opaque: m[2]!, weak: m[1] !== undefined });
  }
  return { any: false, tags };
}

/**
 * The version tag of a row from its served JSON text without expansions:
 * the MD5 of its UTF-8 bytes as 32 hex digits, the digest PostgreSQL
 * computes for writes (runtime/sql/row.ts `rowTag`). The text a read sends
 * is byte for byte the JSON a write returns (decision 0805), so both give
 * one tag per version (docs/decisions/1339-lighter-request-path.md).
 */
export function rowVersionTag(rowJson: string): string {
  // The one-shot hash (Node 20.12+) makes no Hash object per read (decision 1341); a string is hashed as UTF-8.
  return hash("md5", rowJson, "hex");
}

/** The strong `ETag` of a row version tag (32 hex digits). */
export function rowEntityTag(tag: string): string {
  return `"${tag}"`;
}

/** A strong `ETag` for a body that is not one row's own representation: 27 base64url characters of its SHA-256. */
export function bodyEntityTag(body: string): string {
  return `"${hash("sha256", body, "base64url").slice(0, 27)}"`;
}

/**
 * `If-None-Match` against the tag of the current representation, by weak
 * comparison as RFC 9110 §13.1.2 asks: true when the client's copy is
 * current and a 304 answers.
 */
export function noneMatchHolds(condition: TagCondition | undefined, etag: string): boolean {
  if (condition === undefined) return false;
  if (condition.any) return true;
  const opaque = etag.replace(/^W\//, "").slice(1, -1);
  return condition.tags.some((t) => t.opaque === opaque);
}

/**
 * The row version tags an `If-Match` allows, by strong comparison (a weak
 * tag never matches): undefined for no header or `*` (any current row).
 */
export function ifMatchTags(condition: TagCondition | undefined): string[] | undefined {
  if (condition === undefined || condition.any) return undefined;
  return condition.tags.filter((t) => !t.weak).map((t) => t.opaque);
}
