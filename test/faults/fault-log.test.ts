/**
 * One log line per fault (docs/decisions/0912-fault-log.md):
 * a 5xx writes one `resc fault …` line naming kind, resource and request
 * id, and the stack trace only when `RESC_LOG_LEVEL=debug`.
 */
import { Hono } from "hono";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import { mountService } from "../../runtime/http/mount.js";
import { compileFile } from "../support/service.js";

const { service } = await compileFile("test/faults/fixtures/faults.resource");
// Port 1 on loopback: nothing listens, so every request is a 503.
const db = createPgExecutor({
  connectionString: "postgres://postgres@127.0.0.1:1/none",
  connectionTimeoutMillis: 1000,
});
const app = new Hono();
const mounted = mountService(app, service, { db });

afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.RESC_LOG_LEVEL;
});
afterAll(() => db.close());

/** Sends `init` to `path` and returns what the service wrote on stderr meanwhile. */
async function stderrOf(path: string, init: RequestInit = {}): Promise<{ status: number; lines: string[] }> {
  const written: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  const res = await app.request(path, init);
  vi.restoreAllMocks();
  return { status: res.status, lines: written.join("").split("\n").filter(Boolean) };
}

describe("the fault log", () => {
  it("mounts", () => {
    expect(mounted.ok).toBe(true);
  });

  it("writes one line per fault, with kind, resource, method and the client's request id", async () => {
    const { status, lines } = await stderrOf("/naps", { headers: { "x-request-id": "req-42" } });
    expect(status).toBe(503);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^resc fault status=503 kind=database-unavailable resource=\/naps method=GET request_id=req-42 code=ECONNREFUSED message=/,
    );
    expect(lines[0]).not.toMatch(/\n|at .*\(/);
  });

  it("makes a request id when the client sent none or an unusable one", async () => {
    const { lines } = await stderrOf("/naps/1", { headers: { "x-request-id": "has spaces" } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/request_id=[0-9a-f-]{36} /);
  });

  it("adds the stack trace at the debug level", async () => {
    process.env.RESC_LOG_LEVEL = "debug";
    const { lines } = await stderrOf("/naps", {
      method: "POST",
      body: JSON.stringify({ name: "n" }),
      headers: { "content-type": "application/json" },
    });
    expect(lines[0]).toMatch(/^resc fault status=503 .*method=POST/);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.slice(1).join("\n")).toMatch(/\bat /);
  });
});
