/**
 * The request log names the caller (docs/decisions/1367-access-rules.md;
 * docs/deploy.md, "Logs"): `withOperations`' line for a request whose
 * principal has a subject carries `"sub"`; an anonymous request's, and a
 * refused one's, carry none; the rest of the line is as before.
 */
import { Writable } from "node:stream";
import { Hono } from "hono";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountService } from "../../runtime/http/mount.js";
import { withOperations } from "../../runtime/ops/index.js";
import type { TestDatabase } from "../support/db.js";
import { authWith, hsToken, notesDatabase, notesService, SECRET, SECRET_ENV } from "./support.js";

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const l of chunk.toString("utf8").split("\n"))
      if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
    done();
  },
});

let db: TestDatabase;
const app = new Hono();

beforeAll(async () => {
  db = await notesDatabase("auth_log");
  withOperations(app, { db: db.executor, logger: pino({ level: "info" }, sink) });
  const { service } = notesService(authWith({ roles: ["anon", "member"], anonymous: "anon" }));
  const r = mountService(app, service, { db: db.executor, auth: { env: { [SECRET_ENV]: SECRET } } });
  expect(r.ok).toBe(true);
});
afterAll(async () => {
  await db?.drop();
});

/** The request line of `GET /notes` with `headers`. */
async function lineOf(headers: Record<string, string>): Promise<Record<string, unknown>> {
  const before = lines.length;
  await app.request("/notes", { headers });
  await new Promise((r) => setImmediate(r));
  const line = lines.slice(before).find((l) => l.msg === "request");
  expect(line).toBeDefined();
  return line!;
}

describe("the request line", () => {
  it("names the subject of a verified token", async () => {
    const line = await lineOf({ authorization: `Bearer ${await hsToken({ sub: "ada@example.org" })}` });
    expect(line).toMatchObject({ method: "GET", route: "/notes", status: 200, sub: "ada@example.org" });
  });

  it("names none for an anonymous request or a refused token", async () => {
    expect(await lineOf({})).not.toHaveProperty("sub");
    const refused = await lineOf({ authorization: "Bearer nope" });
    expect(refused).toMatchObject({ status: 401 });
    expect(refused).not.toHaveProperty("sub");
  });
});
