/**
 * `resc dev`'s request line (cli/dev/app.ts) redacts credentials in the
 * query as `resc serve`'s does (runtime/ops/redact.ts;
 * docs/decisions/1367-access-rules.md: a token in the query string is never
 * read, nor logged), names the caller's `sub`, and logs why a token was
 * refused, as `resc serve` does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevApp } from "../../cli/dev/app.js";
import { freshDatabase } from "../idempotency/support.js";
import type { TestDatabase } from "../support/db.js";
import { compileText } from "../support/service.js";
import { authWith, hsToken, NOTES, notesService, SECRET, SECRET_ENV } from "../auth/support.js";

const SCHEMA = NOTES;

describe("resc dev's request line", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase("pglite", "dev-request-log");
    await db.executor.script(compileText(SCHEMA, "notes.resource").ddl);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("logs access_token=REDACTED, never the token", async () => {
    const lines: string[] = [];
    const { app } = createDevApp(compileText(SCHEMA, "notes.resource").service, {
      db: db.executor,
      log: (l) => lines.push(l),
    });
    await app.request("http://localhost/notes?access_token=eyJhbGciOi.secret-part.sig&limit=5");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^GET \/notes\?access_token=REDACTED&limit=5 \d{3} \d+ms$/);
    expect(lines[0]).not.toContain("secret-part");
  });

  it("names the caller's sub, and logs the reason of a refused token without the token", async () => {
    const lines: string[] = [];
    const { app } = createDevApp(notesService(authWith()).service, {
      db: db.executor,
      log: (l) => lines.push(l),
      auth: { env: { [SECRET_ENV]: SECRET } },
    });
    const good = await hsToken();
    expect((await app.request("http://localhost/notes", { headers: { authorization: `Bearer ${good}` } })).status).toBe(
      200,
    );
    expect(lines.at(-1)).toMatch(/^GET \/notes 200 \d+ms sub="ada"$/);
    const expired = await hsToken({ exp: Math.floor(Date.now() / 1000) - 3600 });
    const r = await app.request("http://localhost/notes", { headers: { authorization: `Bearer ${expired}` } });
    expect(r.status).toBe(401);
    expect(lines.slice(-2)).toEqual([
      "bearer token refused (reason=expired): the token has expired (exp)",
      expect.stringMatching(/^GET \/notes 401 \d+ms$/),
    ]);
    for (const part of expired.split(".")) expect(lines.join("\n")).not.toContain(part);
  });
});
