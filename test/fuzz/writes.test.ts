/**
 * Property-based fuzzing of POST, PATCH and DELETE over Pagila (docs/http.md), on a disposable database of its own, with no transaction around the
 * run: every request commits or fails for real. Besides the oracle of
 * `support/oracle.ts`, each request is checked against an audit trigger on
 * every table of the database, which logs each committed row change:
 *
 * - a refused request (any 4xx) changed no row of any table;
 * - a 201 inserted exactly the row it answered, readable at its `Location`;
 * - a 200 PATCH updated exactly the row it answered, and a read of the same
 *   path returns what the PATCH answered;
 * - a 204 DELETE deleted exactly one row of its table, which then reads 404.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ColumnDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import { vocabulary } from "../../runtime/query/vocabulary.js";
import { setupPagila, type PagilaContext } from "../pagila/setup.js";
import { anyText, bodyText, encodeId, idText, plausibleFor } from "./support/arbitraries.js";
import { rawClient, type RawRequest } from "./support/http.js";
import { violations, type Secrets } from "./support/oracle.js";
import { fcParameters, timeoutFor } from "./support/runs.js";
import { gatherSecrets } from "./support/secrets.js";
import { hooks } from "../../fixtures/pagila/hooks.js";

let ctx: PagilaContext;
let client: ReturnType<typeof rawClient>;
let secrets: Secrets;
/** Some existing keys of each written table, so PATCH and DELETE hit real rows. */
const keys = new Map<string, string[]>();
/**
 * Keys of rows the run created, by table: no other row refers to them, so
 * a DELETE of one can succeed (Pagila's own rows are nearly all referenced).
 */
const created = new Map<string, string[]>();

const q = (s: string): string => `"${s.replace(/"/g, '""')}"`;
const sql = async (text: string): Promise<Record<string, string | null>[]> =>
  (await ctx.db.executor.query({ text, values: [] })).rows;

beforeAll(async () => {
  ctx = await setupPagila("fuzz_writes");
  client = rawClient(ctx.service, ctx.db.executor, { hooks });
  secrets = await gatherSecrets(ctx.db.executor, ctx.service);
  await installAudit();
  for (const t of written()) {
    const pk = q(t.primaryKey[0]);
    keys.set(
      t.name,
      (await sql(`SELECT ${pk}::text AS k FROM ${q(t.name)} ORDER BY ${pk} LIMIT 40`)).map((r) => r.k!),
    );
  }
});
afterAll(() => ctx?.drop());

function written(): TableDescriptor[] {
  const ops = (t: TableDescriptor) => t.resource?.ops;
  return ctx.service.tables.filter((t) => ops(t)?.create || ops(t)?.update || ops(t)?.delete);
}

/** A JSON value the column should accept (integers kept small so references often exist). */
function plausibleJson(col: ColumnDescriptor): fc.Arbitrary<unknown> {
  if (col.array) return fc.array(plausibleFor(col), { maxLength: 3 });
  if (col.kind === "integer" || col.kind === "bigint") return fc.integer({ min: 1, max: 5 });
  if (col.kind === "boolean") return fc.boolean();
  if (col.kind === "numeric") return fc.integer({ min: 0, max: 999 }).map((n) => (n / 100).toFixed(2));
  return plausibleFor(col);
}

/** A body the decoder should mostly accept: required fields present, others now and then. */
function plausibleBody(table: TableDescriptor, op: "create" | "update"): fc.Arbitrary<string> {
  const v = vocabulary(table);
  // Keys are left to their defaults: a random explicit key mostly collides (a 409, tested elsewhere).
  const fields = (op === "create" ? v.createWritable : v.updateWritable).filter((n) => !table.primaryKey.includes(n));
  const entries = fields.map((name) => {
    const col = table.columns.find((c) => c.name === name)!;
    const value = plausibleJson(col);
    const required = op === "create" && v.required.includes(name);
    return required
      ? value.map((x) => [name, x] as const)
      : fc.option(
          value.map((x) => [name, x] as const),
          { nil: undefined },
        );
  });
  return fc.tuple(...entries).map((es) => JSON.stringify(Object.fromEntries(es.filter((e) => e !== undefined))));
}

/** One write request on one table, with the key it names (PATCH, DELETE) as text. */
interface Write {
  table: string;
  req: RawRequest;
}

function writeRequest(): fc.Arbitrary<Write> {
  return fc.constantFrom(...written()).chain((t) => {
    const res = t.resource!;
    const fresh = fc.nat().map((i) => {
      const pool = created.get(t.name) ?? [];
      return pool.length ? pool[i % pool.length] : keys.get(t.name)![0];
    });
    const id = fc.oneof(
      { arbitrary: fc.constantFrom(...keys.get(t.name)!), weight: 3 },
      { arbitrary: fresh, weight: 2 },
      { arbitrary: idText(t), weight: 1 },
    );
    const choices: fc.Arbitrary<Write>[] = [];
    if (res.ops.create)
      choices.push(
        fc
          .oneof(plausibleBody(t, "create"), bodyText(t))
          .map((body) => ({ table: t.name, req: { method: "POST", path: res.path, body } })),
      );
    if (res.ops.update)
      choices.push(
        fc
          .tuple(id, fc.oneof(plausibleBody(t, "update"), bodyText(t)))
          .map(([k, body]) => ({
            table: t.name,
            req: { method: "PATCH", path: `${res.path}/${encodeId(k, false)}`, body },
          })),
      );
    if (res.ops.delete)
      choices.push(
        fc
          .oneof({ arbitrary: fresh, weight: 3 }, { arbitrary: id, weight: 1 })
          .map((k) => ({ table: t.name, req: { method: "DELETE", path: `${res.path}/${encodeId(k, false)}` } })),
      );
    // A wrong content type, or none, on a write.
    if (res.ops.create)
      choices.push(
        fc
          .tuple(
            plausibleBody(t, "create"),
            fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""),
            anyText,
          )
          .map(([body, contentType, junk]) => ({
            table: t.name,
            req: { method: "POST", path: res.path, body: junk === "" ? body : body + junk, contentType },
          })),
      );
    return fc.oneof(...choices);
  });
}

/**
 * Installs an audit trigger on every table of `public` (partitioned ones
 * through their parent): each row a statement inserts, updates or deletes,
 * and each truncation, is logged in `fuzz.audit` by table and key (the
 * whole row as JSON where the key is not one column). A rolled-back write
 * rolls its log lines back with it, so the log holds exactly what was
 * committed.
 */
async function installAudit(): Promise<void> {
  await ctx.db.executor.script(`
    CREATE SCHEMA fuzz;
    CREATE TABLE fuzz.audit (tbl text NOT NULL, op text NOT NULL, k text);
    CREATE FUNCTION fuzz.log() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO fuzz.audit VALUES (TG_TABLE_NAME, TG_OP, NULL);
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO fuzz.audit VALUES (TG_TABLE_NAME, TG_OP, coalesce(to_jsonb(OLD) ->> TG_ARGV[0], to_jsonb(OLD)::text));
      ELSE
        INSERT INTO fuzz.audit VALUES (TG_TABLE_NAME, TG_OP, coalesce(to_jsonb(NEW) ->> TG_ARGV[0], to_jsonb(NEW)::text));
        IF TG_OP = 'UPDATE' AND to_jsonb(OLD) ->> TG_ARGV[0] IS DISTINCT FROM to_jsonb(NEW) ->> TG_ARGV[0] THEN
          INSERT INTO fuzz.audit VALUES (TG_TABLE_NAME, 'MOVE', coalesce(to_jsonb(OLD) ->> TG_ARGV[0], to_jsonb(OLD)::text));
        END IF;
      END IF;
      RETURN NULL;
    END $f$;
    DO $d$
    DECLARE r record;
    BEGIN
      FOR r IN
        SELECT c.oid::regclass AS rel, coalesce((SELECT a.attname FROM pg_constraint k JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
                                                 WHERE k.conrelid = c.oid AND k.contype = 'p' AND cardinality(k.conkey) = 1), '') AS key
        FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND (c.relkind = 'p' OR (c.relkind = 'r' AND NOT c.relispartition))
          -- resc's own tables (the change feed's outbox, written by the capture trigger with each change) are not rows a request answers for
          AND c.relname NOT IN ('resc_events', 'resc_deliveries', 'resc_webhook_cursors', 'resc_idempotency', 'resc_migrations')
      LOOP
        EXECUTE format('CREATE TRIGGER fuzz_audit AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION fuzz.log(%L)', r.rel, r.key);
        EXECUTE format('CREATE TRIGGER fuzz_audit_truncate AFTER TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION fuzz.log(%L)', r.rel, r.key);
      END LOOP;
    END $d$;`);
}

/** Takes the audit log: every row change committed since the last call, as `table op key`. */
async function takeAudit(): Promise<string[]> {
  const rows = await sql("DELETE FROM fuzz.audit RETURNING tbl || ' ' || op || ' ' || coalesce(k, '') AS e");
  return rows.map((r) => r.e!).sort();
}

describe("hostile writes", () => {
  it(
    "never answer 5xx or leak, and change exactly the row they answer for",
    async () => {
      const tally = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(writeRequest(), async ({ table, req }) => {
          const t = ctx.service.tables.find((x) => x.name === table)!;
          await takeAudit();
          const ans = await client.send(req);
          const tag = `${req.method} ${ans.status}`;
          tally.set(tag, (tally.get(tag) ?? 0) + 1);
          const problems = violations(req, ans, secrets, { scanSuccess: false });
          const changed = await takeAudit();
          const body = ans.json as Record<string, unknown> | undefined;
          const key = body && t.primaryKey[0] in body ? String(body[t.primaryKey[0]]) : undefined;
          const expect1 = (op: string, k: string | undefined): void => {
            if (changed.length !== 1 || changed[0] !== `${t.name} ${op} ${k}`)
              problems.push(`changed [${changed.join("; ")}], expected ${t.name} ${op} ${k}`);
          };
          if (ans.status >= 400) {
            if (changed.length) problems.push(`a refused request changed [${changed.join("; ")}]`);
          } else if (req.method === "POST") {
            if (ans.status !== 201) problems.push(`create answered ${ans.status}`);
            expect1("INSERT", key);
            if (key !== undefined) created.set(t.name, [...(created.get(t.name) ?? []), key]);
            const location = ans.headers.get("location") ?? "";
            const read = await client.send({ method: "GET", path: location });
            if (read.status !== 200 || JSON.stringify(read.json) !== JSON.stringify(ans.json))
              problems.push(`Location ${location} reads ${read.status} ${read.text.slice(0, 200)}`);
          } else if (req.method === "PATCH") {
            expect1("UPDATE", key);
            const read = await client.send({ method: "GET", path: req.path });
            if (JSON.stringify(read.json) !== JSON.stringify(ans.json))
              problems.push(`a read after the update differs: ${read.text.slice(0, 200)}`);
          } else if (req.method === "DELETE") {
            if (ans.status !== 204) problems.push(`delete answered ${ans.status}`);
            if (changed.length !== 1 || !changed[0].startsWith(`${t.name} DELETE `))
              problems.push(`delete changed [${changed.join("; ")}]`);
            const read = await client.send({ method: "GET", path: req.path });
            if (read.status !== 404) problems.push(`the deleted row still reads ${read.status}`);
            const gone = changed[0]?.split(" ")[2];
            created.set(
              t.name,
              (created.get(t.name) ?? []).filter((k) => k !== gone),
            );
          }
          if (problems.length > 0 || client.logged.length > 0) {
            const logged = client.logged.splice(0).map(String);
            throw new Error(
              `${req.method} ${req.path} ${req.contentType ?? ""} body ${String(req.body).slice(0, 500)}\n→ ${ans.status} ${ans.text.slice(0, 800)}\n` +
                [...problems, ...logged.map((l) => `logged: ${l}`)].join("\n"),
            );
          }
        }),
        fcParameters(200),
      );
      if (process.env.RESC_FUZZ_RUNS)
        console.log(
          `fuzz writes: ${[...tally]
            .sort()
            .map(([s, n]) => `${s}×${n}`)
            .join(" ")}`,
        );
      // The generators must land writes, not only be refused.
      expect(tally.get("POST 201") ?? 0).toBeGreaterThan(3);
      expect(tally.get("PATCH 200") ?? 0).toBeGreaterThan(3);
    },
    timeoutFor(200),
  );
});
