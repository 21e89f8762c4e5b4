/**
 * The typed client against the reference application served on a real port
 * (spec.resource, examples/tracker/seed.sql, trivial hooks): every exposed
 * operation, filters of each value family read by the real server, cursor
 * paging, refusals; and the same client over an in-process transport
 * (Hono's `app.request`), without sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevApp } from "../../cli/dev/app.js";
import { Client, ProblemError, allowedAt, etagOf, type Transport } from "../../fixtures/spec/expected/client/index.js";
import { startTracker, trivialHooks, type RunningService } from "../cli-tree/service.js";

let svc: RunningService;
let client: Client;

beforeAll(async () => {
  svc = await startTracker();
  client = new Client({ baseURL: svc.url, token: "any" });
});
afterAll(async () => {
  await svc?.stop();
});

describe("typed client over HTTP", () => {
  it("follows changes with events(): filtered and projected, a soft delete as a delete, resumed after an id", async () => {
    const stop = new AbortController();
    const seen: { type: string; id: string; row?: unknown; key?: unknown }[] = [];
    const events = client.tasks.events({ where: { title: "Feed me" }, select: ["title"] }, { signal: stop.signal });
    const consumer = (async () => {
      for await (const e of events) {
        seen.push(e);
        if (seen.length === 2) break;
      }
    })();
    // The stream opens when iteration starts: give it a moment before writing.
    await new Promise((r) => setTimeout(r, 500));
    const made = await client.tasks.create({ list_id: 1, title: "Feed me", labels: [] } as never);
    const other = await client.tasks.create({ list_id: 1, title: "Not this one", labels: [] } as never);
    await client.tasks.update(made.id, { priority: 2 } as never);
    await client.tasks.delete(made.id);
    await client.tasks.delete(other.id); // soft: the other tests count the seed's tasks
    await consumer;
    // The update changed no column of `select: ["title"]`, so it is nothing to this stream (decision 1337).
    expect(seen.map((e) => e.type)).toEqual(["create", "delete"]);
    expect(seen[0]!.row).toEqual({ id: made.id, title: "Feed me" });
    expect(seen[1]!.key).toEqual({ id: made.id });
    // Resumed after the create with every column: the update, then the delete again, nothing before.
    const again = client.tasks.events({ where: { title: "Feed me" } }, { lastEventId: seen[0]!.id });
    const next = await again.next();
    expect(next.value).toMatchObject({ type: "update", row: { title: "Feed me", priority: 2 } });
    const then = await again.next();
    expect(then.value).toMatchObject({ type: "delete", id: seen[1]!.id, key: { id: made.id } });
    await again.return(undefined);
    stop.abort();
    // A filter the service refuses rejects with its problem document, not a retry loop.
    const refused = await client.tasks
      .events({ where: { nosuch: "x" } as never })
      .next()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).status).toBe(400);
  });

  it("creates many rows in one request (createMany), in order, or none when one is refused", async () => {
    const rows = await client.lists.createMany([
      { title: "Batch A", position: 20 },
      { title: "Batch B", position: 21 },
    ]);
    expect(rows.map((r) => r.title)).toEqual(["Batch A", "Batch B"]);
    const refused = await client.lists
      .createMany([{ title: "Batch C", position: 22 }, { position: 23 } as never])
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem.errors?.map((e) => e.location)).toEqual(["body[1].title"]);
    const after = await client.lists.list({ search: "Batch C" });
    expect(after.items).toEqual([]);
  });

  it("creates 1,000 rows with createMany, in order, in one request", async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      list_id: 2,
      title: "Client thousand",
      position: i,
      labels: [],
    }));
    const stored = await client.tasks.createMany(rows);
    expect(stored.map((t) => t.position)).toEqual(rows.map((r) => r.position));
    expect(new Set(stored.map((t) => t.id)).size).toBe(1000);
    const removed = await client.tasks.deleteWhere({ title: "Client thousand" });
    expect(removed).toHaveLength(1000); // soft-deleted: the other tests count the seed's tasks
  });

  it("upserts: merge overwrites a row conflicting on the key, ignore keeps it", async () => {
    const [made] = await client.lists.createMany([{ title: "Upsert me", position: 40 }]);
    const merged = await client.lists.upsert([{ id: made!.id, title: "Merged", position: 41 } as never], {
      resolution: "merge",
      onConflict: ["id"],
    });
    expect(merged.map((r) => [r.id, r.title])).toEqual([[made!.id, "Merged"]]);
    const kept = await client.lists.upsert([{ id: made!.id, title: "Ignored", position: 42 } as never], {
      resolution: "ignore",
    });
    expect(kept).toEqual([]);
    expect((await client.lists.get(made!.id)).title).toBe("Merged");
  });

  it("updates and deletes every row a filter matches, refusing more than maxAffected", async () => {
    const made = await client.tasks.createMany([
      { list_id: 1, title: "sweep one", labels: ["sweep"] },
      { list_id: 1, title: "sweep two", labels: ["sweep"] },
    ] as never);
    const where = { labels: { has: "sweep" } } as const;
    const refused = await client.tasks.updateWhere(where, { priority: 4 }, { maxAffected: 1 }).catch((e: unknown) => e);
    expect((refused as ProblemError).problem.type).toBe("/problems/max-affected");
    const written = await client.tasks.updateWhere(where, { priority: 4 }, { maxAffected: 2 });
    expect(written.map((t) => t.priority)).toEqual([4, 4]);
    expect(() => client.tasks.deleteWhere({})).toThrow(TypeError);
    const gone = await client.tasks.deleteWhere(where);
    expect(gone.map((k) => k.id).sort()).toEqual((made as { id: number }[]).map((t) => t.id).sort());
  });

  it("runs declared actions as methods: the row after the action, its version, the action's problem (docs/decisions/1334-declared-actions.md)", async () => {
    const task = await client.tasks.create({ list_id: 2, title: "Client action", labels: [] });
    const done = await client.tasks.complete(task.id, { note: "from the client" });
    expect(done).toMatchObject({ id: task.id, status: "done", attrs: { note: "from the client" } });
    const again = await client.tasks.complete(task.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ProblemError);
    expect((again as ProblemError).status).toBe(409);
    const stale = await client.tasks.reopen(task.id, { ifMatch: etagOf(task) }).catch((e: unknown) => e);
    expect((stale as ProblemError).status).toBe(412);
    const reopened = await client.tasks.reopen(task.id, { ifMatch: etagOf(done) });
    expect(reopened.status).toBe("todo");
    expect(etagOf(reopened)).not.toBe(etagOf(done));
    await client.tasks.delete(task.id); // the other tests count the seed's tasks
  });

  it("retries safely with idempotencyKey: the same row again, one row stored (docs/decisions/1335-idempotency-keys.md)", async () => {
    const key = "client-retry-1";
    const first = await client.lists.create({ title: "Retried once", position: 60 }, { idempotencyKey: key });
    const retried = await client.lists.create({ title: "Retried once", position: 60 }, { idempotencyKey: key });
    expect(retried).toEqual(first);
    expect((await client.lists.list({ search: "Retried once" })).items).toHaveLength(1);
    const reused = await client.lists
      .create({ title: "Another", position: 61 }, { idempotencyKey: key })
      .catch((e: unknown) => e);
    expect((reused as ProblemError).status).toBe(422);
    await client.lists.delete(first.id);
  });

  it("keeps each row's version (etagOf) and writes only that version with ifMatch", async () => {
    const list = await client.lists.create({ title: "Versioned", position: 9 });
    const tag = etagOf(list);
    expect(tag).toMatch(/^"[0-9a-f]{32}"$/);
    const read = await client.lists.get(list.id);
    expect(etagOf(read)).toBe(tag);
    const moved = await client.lists.update(list.id, { title: "Moved" }, { ifMatch: tag });
    expect(moved.title).toBe("Moved");
    expect(etagOf(moved)).not.toBe(tag);
    const stale = await client.lists.update(list.id, { title: "Lost" }, { ifMatch: tag }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ProblemError);
    expect((stale as ProblemError).status).toBe(412);
    expect((stale as ProblemError).problem.type).toBe("/problems/precondition-failed");
    await expect(client.lists.delete(list.id, { ifMatch: tag })).rejects.toMatchObject({ status: 412 });
    expect((await client.lists.get(list.id)).title).toBe("Moved");
    await client.lists.delete(list.id, { ifMatch: etagOf(moved) });
    await expect(client.lists.get(list.id)).rejects.toMatchObject({ status: 404 });
    // A list item carries no version of its own.
    const page = await client.lists.list({});
    expect(etagOf(page.items[0]!)).toBeUndefined();
  });

  it("lists with filters, sort, select and count", async () => {
    const page = await client.tasks.list({
      where: { status: { in: ["todo", "doing", "done"] }, labels: { hasany: ["engineering", "purchasing"] } },
      sort: ["-priority"],
      select: ["title", "priority"],
      count: true,
    });
    expect(page.items).toEqual([
      { id: 4, title: "Test launch pad", priority: 4 },
      { id: 1, title: "Design the fuel pump", priority: 3 },
      { id: 2, title: "Order titanium", priority: 2 },
    ]);
    expect(page.total).toBe(3);
    expect(page.has_more).toBe(false);
  });

  it("filters documents, dates, numerics, nulls and groups as the server reads them", async () => {
    const ids = async (where: Parameters<Client["tasks"]["list"]>[0]): Promise<number[]> =>
      (await client.tasks.list({ ...where, select: ["id"], sort: ["title"] })).items.map((r) => r.id).sort();
    expect(await ids({ where: { attrs: { hasdoc: { source: "jira" } } } })).toEqual([1]);
    expect(await ids({ where: { due_on: { gte: new Date(Date.UTC(2026, 10, 30)) } } })).toEqual([1, 3]);
    expect(await ids({ where: { estimate: { between: ["1", 12.5] } } })).toEqual([1, 2]);
    expect(await ids({ where: { assignee_id: { isnull: true } } })).toEqual([2]);
    expect(await ids({ where: { title: { contains: "50%" } } })).toEqual([3]);
    expect(
      await ids({ where: { or: [{ priority: { gte: 4 } }, { status: "blocked", title: { startswith: "write" } }] } }),
    ).toEqual([3, 4]);
    expect(await ids({ where: { not: { labels: { has: "engineering" } } } })).toEqual([2, 3]);
    expect(await ids({ search: "REVIEW" })).toEqual([1]);
  });

  it("reads with expansions: a forward row, null for a nullable reference, inverse children", async () => {
    const one = await client.tasks.get(1, { expand: ["list", "assignee", "comments"] });
    expect(one.list.title).toBe("Backlog");
    expect(one.assignee?.name).toBe("Ada Lovelace");
    expect(one.comments.items.map((c) => c.body)).toEqual(["Reviewed, two remarks.", "Pump drawings attached."]);
    expect(one.comments.has_more).toBe(false);
    const two = await client.tasks.get(2, { expand: ["assignee"] });
    expect(two.assignee).toBeNull();
  });

  it("walks every page through next_cursor", async () => {
    const seen: number[] = [];
    let pages = 0;
    for await (const page of client.tasks.pages({ perPage: 1, sort: ["title"], select: ["title"] })) {
      pages++;
      seen.push(...page.items.map((r) => r.id));
    }
    expect(pages).toBe(4);
    expect(seen).toEqual([1, 2, 4, 3]);
  });

  it("creates, updates and deletes", async () => {
    const created = await client.lists.create({ title: "Client test", position: 9 });
    expect(created).toMatchObject({ title: "Client test", position: 9, color: null });
    const updated = await client.lists.update(created.id, { color: "#123456", archived_at: "2026-01-01T00:00:00Z" });
    expect(updated).toMatchObject({ color: "#123456", archived_at: "2026-01-01T00:00:00Z" });
    const cleared = await client.lists.update(created.id, { color: null });
    expect(cleared.color).toBeNull();
    await client.lists.delete(created.id);
    const gone = await client.lists.get(created.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ProblemError);
    expect((gone as ProblemError).status).toBe(404);
  });

  it("takes a Date in create, update and createMany bodies, written in each column's wire form", async () => {
    // A date column gets the calendar day (UTC), a timestamptz the instant, as a filter writes them.
    const due = new Date("2026-03-04T21:30:00.000Z");
    const task = await client.tasks.create({ list_id: 1, title: "Dated", labels: [], due_on: due });
    expect(task.due_on).toBe("2026-03-04T00:00:00Z");
    const moved = await client.tasks.update(task.id, { due_on: new Date("2026-05-06T00:00:00Z") });
    expect(moved.due_on).toBe("2026-05-06T00:00:00Z");
    const found = await client.tasks.list({ where: { due_on: { eq: new Date("2026-05-06T12:00:00Z") } } });
    expect(found.items.map((t) => t.id)).toEqual([task.id]);
    const [list] = await client.lists.createMany([
      { title: "Dated list", position: 30, archived_at: new Date("2026-01-02T03:04:05.678Z") },
    ]);
    expect(list!.archived_at).toBe("2026-01-02T03:04:05.678Z");
    const archived = await client.lists.update(list!.id, { archived_at: new Date("2026-07-08T09:10:11Z") });
    expect(archived.archived_at).toBe("2026-07-08T09:10:11Z");
  });

  it("surfaces a 400 with the allowed alternatives", async () => {
    const bad = await client.tasks
      .list({ sort: ["summary" as never], expand: ["watchers" as never] })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ProblemError);
    const pe = bad as ProblemError;
    expect(pe.status).toBe(400);
    expect(allowedAt(pe, "query.sort")).toEqual([
      "title",
      "status",
      "priority",
      "position",
      "estimate",
      "due_on",
      "created_at",
    ]);
    expect(allowedAt(pe, "query.expand")).toEqual(["list", "assignee", "comments"]);
  });
});

describe("typed client over an in-process transport", () => {
  it("replaces HTTP entirely: the same answers without a socket", async () => {
    const { app } = createDevApp(svc.service, { db: svc.db.executor, hooks: trivialHooks(svc.service) });
    const before = svc.log.length;
    const transport: Transport = async (r, signal) => {
      const res = await app.request(r.url, { method: r.method, headers: r.headers, body: r.body, signal });
      return { status: res.status, body: await res.text() };
    };
    const local = new Client({ baseURL: "http://in-process", transport });
    const page = await local.orgs.list({ select: ["name"] });
    expect(page.items).toEqual([
      { id: "00000000-0000-4000-8000-000000000001", name: "Acme Rockets" },
      { id: "00000000-0000-4000-8000-000000000002", name: "Globex Tea" },
    ]);
    const refused = await local.orgs.get("not-a-uuid").catch((e: unknown) => e);
    expect((refused as ProblemError).problem.errors?.[0]?.location).toBe("path.id");
    expect(svc.log.length).toBe(before);
  });
});
