/**
 * What `resc pull` does with what production databases carry
 * (docs/decisions/1256-pull-hides-secrets.md): credentials under many names
 * and in credential-store tables are hidden, each with a comment saying
 * why; a reference to a table of another schema is left out, never rebound
 * to a same-named table of the schema pulled; a second check on a column is
 * left out, named; a table without a primary key is described but not
 * served; soft-delete columns are declared and a deleted flag scopes its
 * table; and the file compiles.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driftSteps, introspect } from "../../catalog/index.js";
import { pulledFile } from "../../cli/pull/pull-file.js";
import { buildDescriptor } from "../../compiler/descriptor.js";
import { compileSource } from "../../compiler/index.js";
import { emitSql } from "../../compiler/backends/sql/index.js";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";
import { loadMigrations, type MigratedSample } from "../support/samples.js";
import { credentialColumns } from "../../catalog/index.js";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
let db: TestDatabase | undefined;

beforeAll(async () => {
  if (!server) return;
  db = await createTestDatabase("pull_safety");
  await db.executor.script(`
    CREATE SCHEMA billing;
    CREATE TABLE public.accounts (id serial PRIMARY KEY, name text NOT NULL);
    CREATE TABLE billing.accounts (id serial PRIMARY KEY, label text);
    CREATE TABLE billing.invoices (
      id serial PRIMARY KEY,
      account_id integer NOT NULL REFERENCES public.accounts (id),
      amount numeric(10,2) CHECK (amount >= 0) CHECK (amount < 1000000)
    );
    CREATE TABLE public.users (
      id serial PRIMARY KEY, email text NOT NULL, api_key text, hmac_key text, salt text,
      password_digest text, "otpSecret" text, remember_token text, deleted_at timestamptz
    );
    CREATE INDEX ON public.users (api_key);
    CREATE TABLE public.api_keys (
      id serial PRIMARY KEY, user_id integer REFERENCES public.users (id), value text NOT NULL, key text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE public.site_credentials (id serial PRIMARY KEY, credential text);
    CREATE TABLE public.events (at timestamptz, what text);
    CREATE TABLE public.posts (id serial PRIMARY KEY, title text, is_deleted boolean NOT NULL DEFAULT false);
    -- What the language cannot say: an ON DELETE action, a generated column, expression and partial indexes,
    -- a second check on a column, a composite reference, a quoted name.
    CREATE TABLE public.orders (
      id serial PRIMARY KEY, user_id integer REFERENCES public.users (id) ON DELETE CASCADE, code text,
      doubled integer GENERATED ALWAYS AS (id * 2) STORED,
      CONSTRAINT orders_code_a CHECK (length(code) > 0), CONSTRAINT orders_code_b CHECK (code = upper(code))
    );
    CREATE INDEX ON public.orders (lower(code));
    CREATE INDEX ON public.orders (code) WHERE code IS NOT NULL;
    CREATE TABLE public.order_lines (order_id integer, line integer, PRIMARY KEY (order_id, line));
    CREATE TABLE public.shipments (id serial PRIMARY KEY, order_id integer, line integer,
      FOREIGN KEY (order_id, line) REFERENCES public.order_lines);
    CREATE TABLE public."Audit Log" (id serial PRIMARY KEY);
    CREATE TABLE public.entries (id serial PRIMARY KEY, "table" text, domain text, enum text, resource text);
    -- Indexed columns named like the list grammar's parameters: sortable, never filterable, the table kept.
    CREATE TABLE public.steps (id serial PRIMARY KEY, sort integer, page integer, label text);
    CREATE INDEX ON public.steps (sort);
    CREATE INDEX ON public.steps (page);
    -- A forward relation and an inverse one that would take one name on one table.
    CREATE TABLE public.person (id serial PRIMARY KEY, manager_id integer);
    CREATE TABLE public.manager (id serial PRIMARY KEY, person_id integer REFERENCES public.person (id));
    ALTER TABLE public.person ADD FOREIGN KEY (manager_id) REFERENCES public.manager (id);
  `);
});
afterAll(async () => {
  await db?.drop();
});

async function pulled(...schemas: string[]): Promise<{ text: string; leftOut: string[] }> {
  const { catalog, extras } = await introspect(db!.url!, schemas);
  const r = pulledFile(catalog, extras, "pulled.resource");
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("\n"));
  expect(compileSource(r.text, "pulled.resource").diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return r;
}

/** The line declaring `column` in `text`, with the comment line above it. */
function declaration(text: string, column: string): string {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => new RegExp(`^  ${column} `).test(l));
  if (at < 0) throw new Error(`no column ${column} in:\n${text}`);
  return `${lines[at - 1]}\n${lines[at]}`;
}

describe.skipIf(!server)("resc pull on what production databases carry", () => {
  it("hides every credential-like column, saying why, and makes none filterable", async () => {
    const { text } = await pulled("public");
    for (const column of [
      "api_key",
      "hmac_key",
      "salt",
      "password_digest",
      "remember_token",
      "value",
      "key",
      "credential",
    ]) {
      const d = declaration(text, column);
      expect(d, column).toMatch(/\/\/ hidden by resc pull: .+; remove @hidden to serve it\n.*@hidden/);
      expect(d, column).not.toMatch(/@filterable|@sortable/);
    }
    // A quoted camel-case name is pulled under a plain one, keeping its own with @map, and hidden like the rest.
    expect(declaration(text, "otp_secret")).toMatch(
      /hidden by resc pull: .*\n  otp_secret +text\? +@map\("otpSecret"\) @hidden/,
    );
    const service = buildDescriptor(compileSource(text, "pulled.resource").schema);
    const shown = (table: string) =>
      service.tables
        .find((t) => t.name === table)!
        .columns.filter((c) => !c.hidden)
        .map((c) => c.name);
    expect(shown("users")).toEqual(["id", "email"]);
    expect(shown("api_keys")).toEqual(["id", "user_id", "created_at"]);
    expect(shown("site_credentials")).toEqual(["id"]);
  });

  it("declares soft deletes, scopes a table with a deleted flag, and serves no table without a primary key", async () => {
    const { text, leftOut } = await pulled("public");
    expect(declaration(text, "deleted_at")).toMatch(/@soft_delete @hidden/);
    expect(text).toMatch(/table posts \{[^}]*@@scoped/);
    expect(text).toMatch(/table events \{[^}]*\/\/ not served: it has no primary key\n\}/);
    expect(leftOut).toContain("resource for table events: it has no primary key");
  });

  it("never rebinds a reference to another schema's table by name, and names a second check it leaves out", async () => {
    const { text, leftOut } = await pulled("billing");
    expect(declaration(text, "account_id")).not.toMatch(/@ref/);
    expect(text).toMatch(/\/\/ left out: foreign key invoices_account_id_fkey .*public\.accounts.*a schema not pulled/);
    expect(text).toMatch(/table invoices \{[^}]*@@schema\("billing"\)/);
    expect(
      leftOut.some((l) =>
        /^check billing\.invoices\.invoices_amount_check\d*: the column amount has a check already/.test(l),
      ),
    ).toBe(true);
    expect(declaration(text, "amount")).toMatch(/@check\(/);
  });

  it("keeps a table whose indexed columns are named like the list grammar's parameters: sortable, not filterable", async () => {
    const { text } = await pulled("public");
    expect(declaration(text, "sort")).toMatch(/  sort +integer\? +@sortable$/);
    expect(declaration(text, "page")).toMatch(/  page +integer\? +@sortable$/);
    expect(text).toMatch(/resource "\/steps"/);
  });

  it("gives a forward and an inverse relation of one table different names, keeping both tables", async () => {
    const { text } = await pulled("public");
    const rels = [...text.matchAll(/@ref\((\w+), (person|manager)\)|@inverse\((\w+)\)/g)].map((m) => m[0]);
    expect(rels).toEqual(
      expect.arrayContaining(["@ref(manager_ref, manager)", "@ref(person, person)", "@inverse(manager)"]),
    );
    expect(text).toMatch(/resource "\/person"/);
    expect(text).toMatch(/resource "\/manager"/);
  });

  it("pulls two schemas into one file: a reference across them is an ordinary @ref to the right table", async () => {
    const { text } = await pulled("public", "billing");
    // public.accounts keeps its name; billing.accounts, pulled second, is prefixed with its schema.
    expect(text).toMatch(/table accounts \{\n  id +serial/);
    expect(text).toMatch(/table billing_accounts \{[^}]*@@map\("accounts"\)\n  @@schema\("billing"\)/);
    expect(declaration(text, "account_id")).toMatch(/@ref\(account, accounts\)/);
    const schema = compileSource(text, "pulled.resource").schema;
    expect((await driftSteps(db!.executor, schema)).map((s) => s.sql)).toEqual([]);
    // The reference resolves to public.accounts in the SQL resc writes, never to billing.accounts.
    expect(emitSql(schema)).toMatch(/CREATE TABLE "billing"\."invoices" \([^;]*REFERENCES "accounts" \("id"\)/);
  });

  it("passes the drift gate on the database it pulled: what it leaves out is not drift", async () => {
    const { text, leftOut } = await pulled("public");
    expect(leftOut.join("\n")).toMatch(/orders_code_b.*has a check already/);
    expect(leftOut.join("\n")).toMatch(/index orders\.orders_lower_idx: it indexes an expression/);
    expect(leftOut.join("\n")).toMatch(/column orders\.doubled: a generated column/);
    // A table whose name has a space and capitals is pulled under a plain name, its own kept with @@map.
    expect(text).toMatch(/table audit_log \{\n[^}]*@@map\("Audit Log"\)\n\n  resource "\/audit_log"/);
    // The language's keywords name columns as they are.
    expect(text).toMatch(
      /table entries \{\n  id +serial[^\n]*\n  table +text\?\n  domain +text\?\n  enum +text\?\n  resource +text\?\n/,
    );
    expect((await driftSteps(db!.executor, compileSource(text, "pulled.resource").schema)).map((s) => s.sql)).toEqual(
      [],
    );
  });
});

/** A column of a case: name, type, and optionally a comment. */
type Col = { name: string; type: string; comment?: string; key?: boolean; reference?: boolean };

/**
 * The credential rules, case by case (catalog/render/secrets.ts, docs/decisions/1256-pull-hides-secrets.md): the table,
 * the column judged, its siblings, and the reason it is hidden (a pattern) or undefined when it is served.
 */
const CASES: readonly { table: string; column: Col; siblings?: Col[]; hidden: RegExp | undefined }[] = [
  // Codes used to sign in, whatever their table; a plain code in an auth-ish table too, but not a country code.
  {
    table: "users",
    column: { name: "otp_backup_codes", type: "character varying[]" },
    hidden: /one-time password|sign in/,
  },
  { table: "users", column: { name: "backupCodes", type: "text" }, hidden: /sign in/ },
  { table: "users", column: { name: "recovery_codes", type: "jsonb" }, hidden: /sign in/ },
  { table: "users", column: { name: "hashed_mfa_backup_codes", type: "text[]" }, hidden: /hash/ },
  { table: "cli_auth_requests", column: { name: "code", type: "varchar(64)" }, hidden: /table of sign-in data/ },
  { table: "device_authorizations", column: { name: "user_code", type: "text" }, hidden: /sign-in/ },
  { table: "device_authorizations", column: { name: "country_code", type: "text" }, hidden: undefined },
  { table: "orders", column: { name: "code", type: "text" }, hidden: undefined },
  { table: "team", column: { name: "access_code", type: "varchar(50)" }, hidden: /code used to sign in/ },
  { table: "users", column: { name: "otp", type: "text" }, hidden: /one-time password/ },
  // A comment saying what it holds.
  {
    table: "channels",
    column: { name: "transport", type: "jsonb", comment: "Encrypted JSON blob of the full transport config" },
    hidden: /comment says "encrypted"/,
  },
  { table: "posts", column: { name: "body", type: "text", comment: "The post, in Markdown" }, hidden: undefined },
  // Configuration and parameters beside another credential; alone they are served.
  {
    table: "oauth_access_grants",
    column: { name: "extra_params", type: "jsonb" },
    siblings: [{ name: "token", type: "text" }],
    hidden: /configuration beside credentials|sign-in data/,
  },
  {
    table: "smtp_settings",
    column: { name: "transport_config", type: "text" },
    siblings: [{ name: "api_key", type: "text" }],
    hidden: /configuration beside credentials/,
  },
  { table: "website", column: { name: "replay_config", type: "jsonb" }, hidden: undefined },
  { table: "report", column: { name: "parameters", type: "jsonb" }, hidden: undefined },
  // A plaintext beside its hashed or encrypted form; a value beside an is_encrypted flag.
  {
    table: "invites",
    column: { name: "invite", type: "text" },
    siblings: [{ name: "invite_hash", type: "text" }],
    hidden: /sibling invite_hash/,
  },
  { table: "users", column: { name: "encrypted_password", type: "varchar" }, hidden: /encrypted/ },
  {
    table: "users",
    column: { name: "otpSecretEncrypted", type: "text" },
    hidden: /one-time password|secret|encrypted/,
  },
  { table: "users", column: { name: "reset_digest", type: "text" }, hidden: /digest/ },
  {
    table: "InfraConfig",
    column: { name: "value", type: "text" },
    siblings: [{ name: "isEncrypted", type: "boolean" }],
    hidden: /sibling isEncrypted/,
  },
  { table: "settings", column: { name: "value", type: "text" }, hidden: undefined },
  // Only text-like, binary and JSON columns hold credentials: never a boolean, a number or a time.
  { table: "users", column: { name: "signature_level", type: "integer" }, hidden: undefined },
  { table: "users", column: { name: "isSignatureEnabled", type: "boolean" }, hidden: undefined },
  { table: "users", column: { name: "emailSignatureEnabled", type: "boolean" }, hidden: undefined },
  { table: "users", column: { name: "message_signature", type: "text" }, hidden: undefined },
  { table: "users", column: { name: "password_changed_at", type: "timestamp with time zone" }, hidden: undefined },
  { table: "users", column: { name: "otp_required_for_login", type: "boolean" }, hidden: undefined },
  { table: "users", column: { name: "token_count", type: "integer" }, hidden: undefined },
  { table: "api_keys", column: { name: "uses", type: "integer" }, hidden: undefined },
  // Whole words: `key` only as a credential's key, `session` only in text; a uuid only when named token or secret.
  { table: "event_data", column: { name: "data_key", type: "varchar(500)" }, hidden: undefined },
  { table: "users", column: { name: "hmac_key", type: "text" }, hidden: /a key/ },
  { table: "users", column: { name: "apiKey", type: "text" }, hidden: /API key/ },
  { table: "website_event", column: { name: "session_id", type: "uuid" }, hidden: undefined },
  { table: "sessions", column: { name: "session_id", type: "character varying" }, hidden: /session/ },
  {
    table: "sessions",
    column: { name: "data", type: "text" },
    siblings: [{ name: "session_id", type: "character varying" }],
    hidden: /sign-in data beside other credentials/,
  },
  { table: "session", column: { name: "browser", type: "varchar(20)" }, siblings: [], hidden: undefined },
  { table: "invites", column: { name: "token", type: "uuid" }, hidden: /token/ },
  { table: "users", column: { name: "secretary_name", type: "text" }, hidden: undefined },
  { table: "users", column: { name: "passwordhash", type: "text" }, hidden: /password/ },
  // In a credential store: its text columns but ids and descriptions.
  { table: "api_keys", column: { name: "value", type: "text" }, hidden: /credential store/ },
  { table: "PersonalAccessToken", column: { name: "label", type: "text" }, hidden: undefined },
  { table: "InfraToken", column: { name: "creatorUid", type: "text" }, hidden: undefined },
  // Keys and references are ids.
  { table: "tokens", column: { name: "token", type: "text", key: true }, hidden: undefined },
  { table: "sessions", column: { name: "session_token_id", type: "text", reference: true }, hidden: undefined },
];

describe("which columns resc pull hides as credentials, case by case", () => {
  it.each(CASES.map((c) => ({ ...c, label: `${c.table}.${c.column.name} ${c.column.type}` })))(
    "$label",
    ({ table, column, siblings, hidden }) => {
      const why = credentialColumns(table, [column, ...(siblings ?? [])]).get(column.name);
      if (hidden === undefined) expect(why).toBeUndefined();
      else expect(why).toMatch(hidden);
    },
  );
});

describe.skipIf(!server).each(["hoppscotch", "umami"] as MigratedSample[])(
  "resc pull of %s (its Prisma migrations)",
  (sample) => {
    /** Served and hidden columns the pull of each must give, by table and language column name. */
    const expected: Record<MigratedSample, { hidden: string[]; served: string[] }> = {
      hoppscotch: {
        hidden: [
          "infra_config.value",
          "infra_config.last_synced_env_file_value",
          "infra_token.token",
          "personal_access_token.token",
          "verification_token.token",
          "user.refresh_token",
          "user.current_rest_session",
          "account.provider_access_token",
          "account.provider_refresh_token",
        ],
        served: [
          "infra_config.is_encrypted",
          "infra_config.name",
          "infra_token.label",
          "infra_token.creator_uid",
          "personal_access_token.label",
          "personal_access_token.expires_on",
          "account.provider_scope",
        ],
      },
      umami: {
        hidden: ["user.password", "team.access_code"],
        served: [
          "website_event.session_id",
          "event_data.data_key",
          "session.browser",
          "session_data.data_key",
          "session_data.string_value",
          "website.replay_config",
          "report.parameters",
        ],
      },
    };

    it("hides the credentials, serves the harmless columns, and warns of each hidden required column", async () => {
      const db = await createTestDatabase(`pull_creds_${sample}`);
      try {
        await loadMigrations(db.url!, sample);
        const { catalog, extras } = await introspect(db.url!, ["public"]);
        const r = pulledFile(catalog, extras, `${sample}.resource`);
        if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("\n"));
        const service = buildDescriptor(compileSource(r.text, `${sample}.resource`).schema);
        const column = (qualified: string) => {
          const [table, name] = qualified.split(".");
          const c = service.tables.find((t) => t.name === table)?.columns.find((x) => x.name === name);
          if (!c) throw new Error(`no column ${qualified}`);
          return c;
        };
        for (const c of expected[sample].hidden) expect(column(c).hidden, c).toBe(true);
        for (const c of expected[sample].served) expect(column(c).hidden ?? false, c).toBe(false);
        // A hidden column is never filterable (umami's team.access_code is indexed).
        expect(r.text).not.toMatch(/access_code[^\n]*@filterable/);
        if (sample === "hoppscotch") {
          expect(r.warnings).toContain(
            "column PersonalAccessToken.token is hidden and required: before adding create, set it in a BeforeCreate hook and mark it @stamped, give it a @default(…), or remove @hidden",
          );
          expect(declaration(r.text, "value")).toMatch(/hidden by resc pull: its sibling isEncrypted says/);
        }
      } finally {
        await db.drop();
      }
    });
  },
);
