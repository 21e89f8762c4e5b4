/**
 * `resc dev`'s request line (cli/dev/app.ts) redacts credentials in the
 * query as `resc serve`'s does (runtime/ops/redact.ts;
 * docs/decisions/1367-access-rules.md: a token in the query string is never
 * read, nor logged).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevApp } from "../../cli/dev/app.js";
import { freshDatabase } from "../idempotency/support.js";
import type { TestDatabase } from "../support/db.js";
import { compileText } from "../support/service.js";

const SCHEMA = `
table notes {
  id   bigint @primary_key @default(identity)
  body text
  resource "/notes" { ops = [crud, list] }
}
`;

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
});
