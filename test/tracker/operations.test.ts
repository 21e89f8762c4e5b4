/**
 * The tracker mounts the generated module itself and gets resc serve's
 * operations from one function, `withOperations` from `resc/ops` (docs/deploy.md): request ids, `/live`, `/ready` and `/metrics`,
 * outside its bearer authentication.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startTracker } from "./setup.js";

const tracker = await startTracker("ops");
afterAll(() => tracker.drop());

describe("the tracker's operational routes", () => {
  it("answers /live and /ready without a token", async () => {
    expect((await tracker.request("GET", "/live")).status).toBe(200);
    const ready = await tracker.request<{ status: string }>("GET", "/ready");
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe("ready");
  });

  it("gives every answer a request id and counts it by route template", async () => {
    const token = await tracker.login("ada@acme.test");
    const r = await tracker.request("GET", "/tasks?status=eq.todo", { token, headers: { "x-request-id": "abc-1" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toBe("abc-1");
    const metrics = await tracker.request<string>("GET", "/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/resc_http_requests_total\{method="GET",route="\/tasks",status="200"\} 1/);
  });
});
