/**
 * Which pulled columns may hold a credential, so `resc pull` hides them
 * (docs/decisions/1256-pull-hides-secrets.md). Every word list and rule is
 * here, in {@link CREDENTIAL_RULES} and {@link credentialColumns}: a column
 * is judged by the whole words of its name (snake_case and camelCase split),
 * its type (only text-like, binary and JSON columns can hold one; a uuid only
 * under a name that says token or secret), its comment, its siblings (a
 * plaintext beside its hash, a value beside an `is_encrypted` flag) and its
 * table (a credential store, an auth-ish table with other credentials).
 * Each hidden column carries the reason, so a person can expose it on purpose.
 */

/** The word lists the rules below read, in one place (docs/decisions/1256-pull-hides-secrets.md). */
export const CREDENTIAL_RULES = {
  /** A word of a column's name that marks a credential whatever its table, with the reason printed. */
  words: {
    password: "a password",
    passwd: "a password",
    pwd: "a password",
    passphrase: "a passphrase",
    secret: "a secret",
    secrets: "secrets",
    token: "a token",
    tokens: "tokens",
    hash: "a hash (of a password or token, typically)",
    hashed: "a hash (of a password or token, typically)",
    digest: "a digest (of a password or token, typically)",
    salt: "a salt",
    credential: "a credential",
    credentials: "credentials",
    apikey: "an API key",
    privatekey: "a private key",
    privkey: "a private key",
    private: "private material",
    encrypted: "an encrypted secret",
    crypted: "an encrypted secret",
    ciphertext: "an encrypted secret",
    jwt: "a token",
    otp: "a one-time password",
    totp: "a one-time password seed",
    hotp: "a one-time password seed",
    mfa: "a second-factor secret",
    cookie: "a cookie",
    nonce: "a nonce",
    ssn: "a social security number",
    cvv: "a card security code",
    cvc: "a card security code",
    pin: "a PIN",
  } as Readonly<Record<string, string>>,
  /** Of {@link words}, those a uuid column may hold: a uuid named `session_id` or `key` is an id. */
  uuidWords: new Set(["token", "tokens", "secret", "secrets", "apikey", "nonce", "credential", "credentials"]),
  /** Words before a final `key` that make it a lookup key, not a cryptographic one (`data_key`, `sort_key`). */
  harmlessKeys: new Set(
    "data sort cache partition idempotency object lookup translation i18n locale storage group dedup dedupe unique foreign primary natural event property metric setting settings config file blob bucket route shard order ordering position search message label name attribute field column row item entry variable map".split(
      " ",
    ),
  ),
  /** Words beside `code(s)` that make it a code used to sign in (`backup_codes`, `access_code`, `user_code`). */
  signInCodes: new Set(
    "backup recovery otp mfa totp auth authorization authorize access login signin verification verify confirmation confirm reset invite invitation magic device pairing activation unlock sms security twofactor onetime".split(
      " ",
    ),
  ),
  /** Words beside `code(s)` that keep it a plain code even in an auth-ish table (`country_code`). */
  plainCodes: new Set(
    "country currency postal zip status error language locale region area response http iso product color colour reason type".split(
      " ",
    ),
  ),
  /** Words of a table's name that make it a credential store: its text columns are hidden. */
  storeTables: new Set(
    "key keys apikey apikeys token tokens secret secrets credential credentials password passwords".split(" "),
  ),
  /** Words of a table's name that make it auth-ish: codes in it are sign-in codes; with a credential, a store. */
  authTables: new Set(
    "auth oauth authentication authorization authorizations session sessions device devices mfa otp twofactor login logins verification verifications grant grants".split(
      " ",
    ),
  ),
  /** Columns of a store that describe a credential rather than hold it (`label`, `name`, `scopes`). */
  descriptive: new Set(
    "name label title description note notes comment kind type status scope scopes provider purpose email username ip agent browser os country".split(
      " ",
    ),
  ),
  /** Final words of a configuration or parameters column (`transport_config`, `extra_params`, `settings`). */
  configs: new Set("config configs configuration settings params parameters options extra".split(" ")),
  /** Words of a column comment that say it holds a credential (`-- encrypted JSON blob of the transport config`). */
  commentWords: new Set(
    "encrypted encrypt encryption secret secrets password passwords token tokens credential credentials hashed apikey".split(
      " ",
    ),
  ),
  /** Words joined to a name that make a sibling its hashed or encrypted form (`x_hash`, `encrypted_x`). */
  hashedForms: new Set(["hash", "hashed", "digest", "encrypted", "crypted", "ciphertext"]),
  /** Final words of a column an `is_encrypted` sibling flag says may be encrypted (`value`, `data`). */
  values: new Set(["value", "data", "content", "payload", "blob"]),
  /** Parts found anywhere in a one-word name written without separators (`passwordhash`, `apitoken`). */
  parts: [
    ["password", "a password"],
    ["passwd", "a password"],
    ["passphrase", "a passphrase"],
    ["secret", "a secret"],
    ["token", "a token"],
    ["credential", "a credential"],
    ["apikey", "an API key"],
    ["privatekey", "a private key"],
    ["salt", "a salt"],
  ] as readonly (readonly [string, string])[],
} as const;

/** `apiKeys`, `api_keys`, `currentRESTSession` → `["api", "keys"]`, `["current", "rest", "session"]`: whole name parts. */
export function splitWords(name: string): string[] {
  return name
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/** The words of {@link splitWords} and adjacent pairs joined (`apikeys`), so `api_key` meets `apikey`. */
export function nameWords(name: string): string[] {
  const words = splitWords(name);
  return [...words, ...words.slice(1).map((w, i) => words[i] + w)];
}

/** A column as the rules read it: its database name, its type (a domain resolved to its base), its comment and role. */
export interface CredentialColumn {
  name: string;
  /** `format_type` spelling, a domain already resolved to its base type. */
  type: string;
  comment?: string;
  /** Part of the primary key, or a reference: an id, never hidden. */
  key?: boolean;
  reference?: boolean;
}

/** What a type can hold: text (text-like, binary, JSON), a uuid, or nothing a credential is kept in. */
function typeClass(type: string): "text" | "uuid" | "none" {
  const base = type.replace(/(\[\])+$/, "").replace(/\(.*\)$/, "");
  if (base === "uuid") return "uuid";
  return /^(text|character varying|varchar|character|bpchar|char|citext|bytea|json|jsonb|name|xml)$/.test(base)
    ? "text"
    : "none";
}

/** Whether the last word is an id's (`creator_uid`, `user_id`): a reference by name. */
const idNamed = (words: readonly string[]): boolean => /^(id|uid|uuid|ids|guid)$/.test(words[words.length - 1] ?? "");

/** The reason the column alone (its name, type, comment and siblings) says it holds a credential. */
function ownReason(c: CredentialColumn, all: readonly CredentialColumn[], authTable: boolean): string | undefined {
  const R = CREDENTIAL_RULES;
  const kind = typeClass(c.type);
  if (kind === "none") return undefined;
  const words = splitWords(c.name);
  const joined = nameWords(c.name);
  if (c.comment !== undefined) {
    const said = splitWords(c.comment).find((w) => R.commentWords.has(w));
    if (said !== undefined) return `its comment says "${said}"`;
  }
  for (const w of joined) {
    const why = R.words[w];
    if (why !== undefined && (kind === "text" || R.uuidWords.has(w))) return `its name says it may hold ${why}`;
  }
  if (kind !== "text") return undefined;
  if (words.length === 1) {
    for (const [part, why] of R.parts) if (words[0]!.includes(part)) return `its name says it may hold ${why}`;
  }
  const last = words[words.length - 1]!;
  const before = words.slice(0, -1);
  if ((last === "key" || last === "keys") && !before.some((w) => R.harmlessKeys.has(w)))
    return "its name says it may hold a key";
  if (words.includes("session") || words.includes("sessions")) return "its name says it may hold a session";
  if (last === "code" || last === "codes") {
    if (joined.some((w) => R.signInCodes.has(w))) return "its name says it is a code used to sign in";
    if (authTable && !before.some((w) => R.plainCodes.has(w)))
      return "a code in a table of sign-in data may be used to sign in";
  }
  const flat = words.join("_");
  for (const s of all) {
    if (s === c) continue;
    const sw = splitWords(s.name);
    const sflat = sw.join("_");
    for (const form of R.hashedForms)
      if (sflat === `${flat}_${form}` || sflat === `${form}_${flat}`)
        return `its sibling ${s.name} is its hashed or encrypted form, so it may hold the plain secret`;
    if (s.type === "boolean" && /^(is_)?encrypted$/.test(sflat) && R.values.has(last))
      return `its sibling ${s.name} says it may be encrypted`;
  }
  return undefined;
}

/**
 * The columns of table `table` (its database name) that `resc pull` hides, each with the reason printed beside
 * it (docs/decisions/1256-pull-hides-secrets.md). A key or a reference is never hidden (an id; a hidden key could
 * not be served); neither is a boolean, number, time or enum. Beyond the column alone: in a credential store
 * (`api_keys`), or an auth-ish table (`sessions`, `oauth_grants`) that holds another credential, every text column
 * but ids and descriptions is hidden; a configuration or parameters column (`transport_config`, `extra_params`)
 * beside another credential is hidden too.
 * @returns column database name → reason
 */
export function credentialColumns(table: string, columns: readonly CredentialColumn[]): Map<string, string> {
  const R = CREDENTIAL_RULES;
  const tableWords = nameWords(table);
  const store = tableWords.some((w) => R.storeTables.has(w));
  const authTable = tableWords.some((w) => R.authTables.has(w));
  const out = new Map<string, string>();
  const candidates = columns.filter((c) => !c.key && !c.reference && typeClass(c.type) !== "none");
  for (const c of candidates) {
    const why = ownReason(c, columns, authTable);
    if (why !== undefined) out.set(c.name, why);
  }
  const signalled = out.size > 0;
  for (const c of candidates) {
    if (out.has(c.name)) continue;
    const words = splitWords(c.name);
    const last = words[words.length - 1]!;
    const kind = typeClass(c.type);
    if ((store || (authTable && signalled)) && !idNamed(words) && !words.every((w) => R.descriptive.has(w))) {
      if (kind === "text" || store)
        out.set(
          c.name,
          store
            ? `table ${table} looks like a credential store`
            : `table ${table} holds sign-in data beside other credentials`,
        );
      continue;
    }
    const config = R.configs.has(last) || (words.length > 1 && words.some((w) => w === "params" || w === "config"));
    if (config && kind === "text" && (signalled || store || authTable))
      out.set(c.name, "a configuration beside credentials may hold one (a client secret, an id_token)");
  }
  return out;
}
