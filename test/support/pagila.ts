/**
 * Loads the Pagila dump kept in the repository (`data/pagila/`) into a test
 * database, on a real server (COPY through pg-copy-streams) or on PGlite
 * (COPY from a blob). The dump is applied unchanged except for `OWNER TO`
 * lines, which name a role a container may not have.
 */
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import type { TestDatabase } from "./db.js";

/** Folder of the Pagila dump files. */
export const PAGILA_DIR = fileURLToPath(new URL("../../data/pagila/", import.meta.url));

/** A dump split into plain SQL and COPY blocks, in order. */
type Segment = { sql: string } | { copy: string; data: string };

function split(dump: string): Segment[] {
  const out: Segment[] = [];
  let sql: string[] = [];
  const lines = dump.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^ALTER .* OWNER TO /.test(line)) continue;
    if (/^COPY .* FROM stdin;$/.test(line)) {
      if (sql.length) out.push({ sql: sql.join("\n") });
      sql = [];
      const data: string[] = [];
      for (i++; i < lines.length && lines[i] !== "\\."; i++) data.push(lines[i]);
      out.push({ copy: line.replace(/ FROM stdin;$/, ""), data: data.length ? data.join("\n") + "\n" : "" });
      continue;
    }
    sql.push(line);
  }
  if (sql.length) out.push({ sql: sql.join("\n") });
  return out;
}

async function loadPg(url: string, segments: Segment[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const s of segments) {
      if ("sql" in s) await client.query(s.sql);
      else await pipeline(Readable.from([s.data]), client.query(copyFrom(s.copy + " FROM STDIN")));
    }
  } finally {
    await client.end();
  }
}

async function loadPglite(db: TestDatabase, segments: Segment[]): Promise<void> {
  const p = db.pglite!;
  for (const s of segments) {
    if ("sql" in s) await p.exec(s.sql);
    else await p.query(s.copy + " FROM '/dev/blob'", [], { blob: new Blob([s.data]) });
  }
  // The dump empties search_path for its session; PGlite has one session, so set it back explicitly.
  await p.exec('SET search_path TO "$user", public');
}

/**
 * Loads schema then data, adds `extra` SQL (e.g. the one GIN index the
 * fixture needs) and runs ANALYZE.
 */
export async function loadPagila(db: TestDatabase, extra = ""): Promise<void> {
  const schema = await readFile(PAGILA_DIR + "pagila-schema.sql", "utf8");
  const data = gunzipSync(await readFile(PAGILA_DIR + "pagila-data.sql.gz")).toString("utf8");
  const segments = [...split(schema), ...split(data), { sql: `SET search_path TO public; ${extra}; ANALYZE;` }];
  if (db.kind === "pg") await loadPg(db.url!, segments);
  else await loadPglite(db, segments);
}
