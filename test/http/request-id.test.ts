/**
 * One rule for a usable request id (runtime/http/request-id.ts, decision
 * 1341), for the production layer and the fault log alike: 1 to 255
 * characters of letters, digits, `_`, `-` and `=`; anything else is
 * replaced by a new UUID.
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { assignRequestId, echoRequestId } from "../../runtime/http/request-id.js";
import { requestIdOf } from "../../runtime/http/fault-log.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const app = new Hono();
// As the production layer does it (runtime/ops/index.ts): the id before routing, the header once answered.
app.use("/assigned", async (c, next) => {
  const id = assignRequestId(c);
  await next();
  echoRequestId(c, id);
});
app.get("/assigned", (c) => c.text(String(c.get("requestId" as never))));
app.get("/fault", (c) => c.text(requestIdOf(c)));

async function idFor(path: string, given: string): Promise<{ body: string; header: string | null }> {
  const r = await app.request(path, { headers: { "x-request-id": given } });
  return { body: await r.text(), header: r.headers.get("x-request-id") };
}

describe("request ids", () => {
  it("keeps a usable id and echoes it", async () => {
    expect(await idFor("/assigned", "trace_1-abc=")).toEqual({ body: "trace_1-abc=", header: "trace_1-abc=" });
    expect((await idFor("/fault", "trace_1-abc=")).body).toBe("trace_1-abc=");
  });

  it.each(["has spaces", "a.b", "x".repeat(256), "a:b"])(
    "replaces %j with a UUID in the layer and in the fault log alike",
    async (given) => {
      const assigned = await idFor("/assigned", given);
      expect(assigned.body).toMatch(UUID);
      expect(assigned.header).toBe(assigned.body);
      expect((await idFor("/fault", given)).body).toMatch(UUID);
    },
  );

  it("keeps an id of exactly 255 characters", async () => {
    const id = "y".repeat(255);
    expect((await idFor("/assigned", id)).body).toBe(id);
  });
});
