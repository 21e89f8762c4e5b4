/**
 * Names for server-side prepared statements (docs/decisions/0800-prepared-statements.md).
 *
 * The SQL compiler gives every request of one shape (same filters,
 * ordering, projection, expansions) the same statement text and puts every
 * value in a bind parameter, so a name derived from the text lets
 * PostgreSQL parse and plan a shape once per connection instead of once per
 * request.
 */
import { createHash } from "node:crypto";

/** Default of {@link PreparedNames}' capacity: distinct statement shapes given a name per executor. */
export const DEFAULT_MAX_PREPARED = 200;

/**
 * Hands out statement names, at most `capacity` distinct ones: each
 * connection may end up holding a plan for every named shape, so the number
 * is bounded to keep the server's memory bounded whatever shapes clients
 * send. Texts seen after the capacity is reached get no name and run as
 * unnamed statements, as before.
 */
export class PreparedNames {
  /** Named texts and their names. Looking a text up here costs far less than hashing it again. */
  private readonly named = new Map<string, string>();

  /** @param capacity the most names handed out; 0 names nothing (no statement is prepared) */
  constructor(private readonly capacity: number) {}

  /**
   * The name for `text`: `resc_` and the base64url SHA-1 of the text (32
   * characters, under PostgreSQL's 63-byte identifier limit; distinct texts
   * never share a name, which node-postgres would refuse), or undefined
   * when the capacity is used up by other texts.
   */
  nameOf(text: string): string | undefined {
    const known = this.named.get(text);
    if (known !== undefined || this.named.size >= this.capacity) return known;
    const name = "resc_" + createHash("sha1").update(text).digest("base64url");
    this.named.set(text, name);
    return name;
  }
}
