/**
 * Which pulled columns may hold a credential, so `resc pull` hides them
 * (docs/decisions/1256-pull-hides-secrets.md). A pulled file errs on the
 * side of hiding: a column is hidden when a word of its name is one
 * credentials go by, or when its table looks like a credential store (its
 * name says keys, tokens, secrets, sessions or credentials) and the column
 * is not the key, a reference or a time. Each hidden column carries a
 * comment saying why, so a person can expose it on purpose.
 */

/** Words of a column name that mark a credential, with the reason printed beside the column. */
export const SECRET_WORDS: Readonly<Record<string, string>> = {
  password: "a password",
  passwd: "a password",
  pwd: "a password",
  passphrase: "a passphrase",
  secret: "a secret",
  token: "a token",
  hash: "a hash (of a password or token, typically)",
  hashed: "a hash (of a password or token, typically)",
  digest: "a digest (of a password or token, typically)",
  key: "a key",
  apikey: "an API key",
  salt: "a salt",
  credential: "a credential",
  credentials: "credentials",
  otp: "a one-time password",
  totp: "a one-time password seed",
  hotp: "a one-time password seed",
  mfa: "a second-factor secret",
  session: "a session",
  cookie: "a cookie",
  private: "private material",
  privkey: "a private key",
  signature: "a signature",
  nonce: "a nonce",
  recovery: "a recovery code",
  ssn: "a social security number",
  cvv: "a card security code",
  cvc: "a card security code",
  pin: "a PIN",
};

/**
 * Parts that mark a credential anywhere in a name, for names written
 * without separators (`passwordhash`, `apitoken`, as databases ported from
 * SQL Server or lower-cased from camel case have them).
 */
const SECRET_PARTS: readonly (readonly [string, string])[] = [
  ["password", "a password"],
  ["passwd", "a password"],
  ["passphrase", "a passphrase"],
  ["secret", "a secret"],
  ["token", "a token"],
  ["credential", "a credential"],
  ["apikey", "an API key"],
  ["privatekey", "a private key"],
  ["salt", "a salt"],
];

/** Words of a table name that mark a credential store. */
const STORE_WORDS = new Set([
  "key",
  "keys",
  "apikey",
  "apikeys",
  "token",
  "tokens",
  "secret",
  "secrets",
  "credential",
  "credentials",
  "session",
  "sessions",
  "password",
  "passwords",
]);

/** `apiKeys`, `api_keys`, `API-KEY` → `["api", "keys"]`, and the joined pairs (`apikeys`) so `api_key` meets `apikey`. */
export function nameWords(name: string): string[] {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  const joined = words.slice(1).map((w, i) => words[i] + w);
  return [...words, ...joined];
}

/** Why a column named `column` of table `table` is hidden, or undefined to serve it. */
export function secretReason(
  table: string,
  column: { name: string; type: string },
  role: { key: boolean; reference: boolean },
): string | undefined {
  for (const w of nameWords(column.name)) {
    const why = SECRET_WORDS[w];
    if (why !== undefined) return `its name says it may hold ${why}`;
  }
  const flat = column.name.toLowerCase().replace(/[^a-z0-9]/g, "");
  for (const [part, why] of SECRET_PARTS) if (flat.includes(part)) return `its name says it may hold ${why}`;
  const store = nameWords(table).some((w) => STORE_WORDS.has(w));
  const time = /^(timestamp|date|time)/.test(column.type);
  if (store && !role.key && !role.reference && !time && column.type !== "boolean") {
    return `table ${table} looks like a credential store`;
  }
  return undefined;
}
