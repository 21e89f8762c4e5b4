/**
 * One subscription PostgreSQL cannot judge stops no one else
 * (docs/decisions/1364-feed-isolation.md), on PostgreSQL and on PGlite.
 *
 * Two real triggers: a filter value our validation used to pass and
 * PostgreSQL refuses when it evaluates it (a numeric past its range, a LIKE
 * pattern ending in its escape character), now a 400 naming the parameter
 * on the list and the feed alike; and a scope whose statement PostgreSQL
 * fails at execution (a BeforeQuery hook's raw predicate dividing by a
 * configured zero), which no validation can see. Such a subscription ends
 * with a `failed` event carrying the problem; every other stream and
 * webhook goes on receiving every change once and in order; a webhook whose
 * filter fails keeps its position and delivers everything once the cause is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient, ProblemError, followEventStream } from "../../compiler/backends/client/core/http.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { cmp, raw } from "../../runtime/predicate.js";
import { databaseKinds, freshDatabase } from "../idempotency/support.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { compileText } from "../support/service.js";
import { openStream, serveService, type Served, type Stream } from "../support/sse.js";
import { until } from "../support/until.js";

const SCHEMA = `
table items {
  id    bigint   @primary_key @default(identity)
  team  text     @filterable
  title text     @filterable
  price numeric? @filterable
  resource "/items" { ops = [crud, list], events = true }
}
`;
const { service, ddl } = compileText(SCHEMA, "feed-isolation.resource");
const SECRET = "whsec_" + Buffer.from("a secret of at least some bytes").toString("base64");

describe.each(await databaseKinds())("feed isolation on %s", (kind) => {
  let db: Executor;
  let drop: () => Promise<void>;
  let served: Served;
  let good: Receiver;
  let bad: Receiver;
  const logged: string[] = [];
  const streams: Stream[] = [];
  const watch = async (query: string, headers: Record<string, string> = {}): Promise<Stream & { body?: unknown }> => {
    const st = await openStream(`${served.url}/items/events${query}`, headers);
    streams.push(st);
    return st;
  };
  const post = async (body: Record<string, unknown>): Promise<void> => {
    const r = await fetch(`${served.url}/items`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(201);
  };

  beforeAll(async () => {
    const fresh = await freshDatabase(kind, "feed_isolation");
    ({ executor: db, drop } = fresh);
    await db.script(ddl);
    // The operator's configuration a hook reads: zero makes the poisoned scope fail in PostgreSQL.
    await db.script("CREATE TABLE divisor (n integer NOT NULL); INSERT INTO divisor VALUES (0)");
    good = await startReceiver();
    bad = await startReceiver();
    // PostgreSQL evaluates the subquery per row, at execution: nothing before can know it divides by zero.
    const poison = raw`1 / (SELECT n FROM divisor) > 0`;
    served = await serveService(service as ServiceDescriptor, {
      db,
      events: { heartbeatMs: 200, pollMs: 100 },
      webhooks: {
        pollMs: 100,
        retryBaseMs: 50,
        timeoutMs: 1000,
        subscriptions: [
          { name: "good", table: "items", filter: "team=eq.red", url: good.url, secret: SECRET },
          {
            name: "poisoned",
            table: "items",
            filter: "team=eq.red",
            url: bad.url,
            secret: SECRET,
            data: { poison: true },
          },
        ],
      },
      logError: (e) => logged.push(e instanceof Error ? e.message : String(e)),
      hooks: {
        beforeQuery: {
          items: (ctx) => {
            const poisoned =
              ctx.http?.req.header("authorization") === "Bearer poison" ||
              (ctx.data as { poison?: boolean } | undefined)?.poison === true;
            return poisoned ? poison : cmp("team", "ne", "none");
          },
        },
      },
    });
  });
  afterAll(async () => {
    for (const st of streams) st.close();
    await served?.close();
    await good?.close();
    await bad?.close();
    await drop?.();
  });

  it("refuses, naming the parameter, filter values PostgreSQL cannot evaluate: on the list and on the feed", async () => {
    for (const [query, location] of [
      ["price=eq.1e200000", "query.price"],
      ["price=in.(1,1e-20000)", "query.price"],
      ["title=like.50%25%5C", "query.title"],
      ["or=(title.ilike.a%5C,team.eq.red)", "query.or"],
    ] as const) {
      for (const path of ["/items", "/items/events"]) {
        const r = await fetch(`${served.url}${path}?${query}`, { headers: { accept: "text/event-stream" } });
        const body = (await r.json()) as { type: string; errors: { location: string }[] };
        expect({ path, query, status: r.status, type: body.type }).toEqual({
          path,
          query,
          status: 400,
          type: "/problems/invalid-query",
        });
        expect(body.errors.map((e) => e.location)).toContain(location);
      }
    }
    // The range's edges are still values.
    for (const query of ["price=eq.9.9e131071", "price=eq.1e-16383", "price=eq.0e999999", "title=like.a%5C%5C"]) {
      expect((await fetch(`${served.url}/items?${query}`)).status).toBe(200);
    }
  });

  it("ends the stream and the webhook PostgreSQL fails alone; every other receives every change once, in order", async () => {
    const red = await watch("?team=eq.red");
    const all = await watch("");
    const poisoned = await watch("?team=eq.red", { authorization: "Bearer poison" });
    expect([red.status, all.status, poisoned.status]).toEqual([200, 200, 200]);
    // Let the webhooks follow from now.
    await new Promise((r) => setTimeout(r, 500));
    await post({ team: "red", title: "one" });
    await post({ team: "blue", title: "two" });
    await post({ team: "red", title: "three" });
    await db.script("UPDATE items SET title = 'four' WHERE title = 'one'");

    const titles = (m: { data: unknown }[]) => m.map((x) => (x.data as { title: string }).title);
    expect(titles(await red.until(3))).toEqual(["one", "three", "four"]);
    expect(titles(await all.until(4))).toEqual(["one", "two", "three", "four"]);
    expect((await red.until(3)).map((m) => m.event)).toEqual(["create", "create", "update"]);

    const [end] = await poisoned.until(1);
    expect(end).toMatchObject({
      event: "failed",
      data: { type: "/problems/subscription-failed", status: 422, errors: [] },
    });
    await poisoned.ended;
    expect(poisoned.messages).toHaveLength(1);

    await until("the good webhook's three deliveries", () => good.got.length >= 3);
    expect(good.got.map((g) => g.data.title).sort()).toEqual(["four", "one", "three"]);
    expect(bad.got).toEqual([]);
    await until("the poisoned webhook logged", () =>
      logged.find((l) => /webhook poisoned/.test(l) && /subscription-failed|could not/.test(l)),
    );

    // Nothing else stopped: a later change reaches everyone still following.
    await post({ team: "red", title: "five" });
    expect(titles(await red.until(4))).toEqual(["one", "three", "four", "five"]);
    expect(titles(await all.until(5))).toEqual(["one", "two", "three", "four", "five"]);

    // The operator fixes the cause: the poisoned webhook resumes where it stopped and loses nothing.
    await db.script("UPDATE divisor SET n = 1");
    await until("the poisoned webhook's four deliveries", () => bad.got.length >= 4, 30_000);
    expect(bad.got.map((g) => g.data.title).sort()).toEqual(["five", "four", "one", "three"]);
    await db.script("UPDATE divisor SET n = 0");
    await until("the good webhook's four deliveries", () => good.got.length >= 4);
    expect(good.got.map((g) => g.data.title).sort()).toEqual(["five", "four", "one", "three"]);
  });

  it("ends a joining subscriber whose backlog fails alone, and the typed client rejects with the problem", async () => {
    const first = await watch("?team=eq.red");
    await post({ team: "red", title: "six" });
    const [six] = await first.until(1);
    await post({ team: "red", title: "seven" });
    await first.until(2);
    // Resuming from before "seven": the poisoned one's backlog fails, the good one's arrives.
    const resumed = await watch("?team=eq.red", { "last-event-id": six!.id! });
    const poisoned = await watch("?team=eq.red", { "last-event-id": six!.id!, authorization: "Bearer poison" });
    expect((await resumed.until(1))[0]).toMatchObject({ event: "create", data: { title: "seven" } });
    expect((await poisoned.until(1))[0]).toMatchObject({
      event: "failed",
      data: { type: "/problems/subscription-failed" },
    });
    await poisoned.ended;

    const client = new HttpClient({ baseURL: served.url, token: "poison" });
    const retries: unknown[] = [];
    const following = (async () => {
      for await (const e of followEventStream(client, "/items", [["team", "eq.red"]], {
        onError: (r) => retries.push(r),
      }))
        void e;
    })();
    await new Promise((r) => setTimeout(r, 300));
    await post({ team: "red", title: "eight" });
    const err = await following.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProblemError);
    expect((err as ProblemError).problem).toMatchObject({ type: "/problems/subscription-failed", status: 422 });
    expect(retries).toEqual([]);
    expect((await first.until(3))[2]).toMatchObject({ event: "create", data: { title: "eight" } });
  });

  it("finds two poisoned subscriptions among many, splitting the statement down to each", async () => {
    const goods = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((i) => watch(`?title=ne.n${i}`)));
    const poisoned = await Promise.all([1, 2].map((i) => watch(`?title=ne.p${i}`, { authorization: "Bearer poison" })));
    await post({ team: "green", title: "nine" });
    await post({ team: "green", title: "ten" });
    for (const g of goods)
      expect((await g.until(2)).map((m) => (m.data as { title: string }).title)).toEqual(["nine", "ten"]);
    for (const p of poisoned) {
      expect((await p.until(1))[0]).toMatchObject({ event: "failed" });
      await p.ended;
      expect(p.messages).toHaveLength(1);
    }
  });
});
