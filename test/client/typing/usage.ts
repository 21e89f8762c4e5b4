/**
 * Compile-time checks of the typed client of spec.resource (its golden
 * copy): what must compile does, and every `@ts-expect-error` line must be
 * an error, or tsc reports the directive as unused. Checked by
 * `npm run typecheck` and, in isolation with only the ES2022 and DOM
 * libraries, by test/client/typing.test.ts. Nothing here runs.
 */
import { Client, type ListPage, type TasksCreate, type TasksRow } from "../../../fixtures/spec/expected/client/index.js";

declare const client: Client;

/** Fails to compile unless `A` and `B` are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

export async function filters(): Promise<void> {
  // Values of each family, operators of each type.
  await client.tasks.list({
    where: {
      title: { contains: "x", in: ["a", "b"], like: "%x%" },
      status: { in: ["todo", "doing"], ne: "done", contains: "do" },
      priority: { gte: 1, between: [1, 3] },
      list_id: { eq: 1n },
      assignee_id: { isnull: true },
      labels: { hasany: ["a"], has: "b" },
      attrs: { hasdoc: { note: "x", nested: [1, null] } },
      estimate: { gt: "1.5", lt: 9 },
      due_on: { lt: new Date(), gte: "2026-01-01" },
      or: [{ status: "todo" }, { not: { priority: 0 } }],
    },
  });
  await client.tasks.list({ where: { status: "blocked", labels: ["a", "b"] } });

  // @ts-expect-error contains is a text operator; priority is a number
  await client.tasks.list({ where: { priority: { contains: "1" } } });
  // @ts-expect-error title is not nullable: no isnull
  await client.tasks.list({ where: { title: { isnull: true } } });
  // @ts-expect-error enum values only
  await client.tasks.list({ where: { status: "nope" } });
  // @ts-expect-error enum values only, in lists too
  await client.tasks.list({ where: { status: { in: ["todo", "later"] } } });
  // @ts-expect-error position is not filterable
  await client.tasks.list({ where: { position: 1 } });
  // @ts-expect-error ordering operators are refused on arrays
  await client.tasks.list({ where: { labels: { gt: "a" } } });
  // @ts-expect-error a document column takes operators, not a bare value
  await client.tasks.list({ where: { attrs: { note: "x" } } });
  // @ts-expect-error hasdoc belongs to documents only
  await client.tasks.list({ where: { title: { hasdoc: { a: 1 } } } });
  // @ts-expect-error a number column takes numbers
  await client.tasks.list({ where: { priority: "high" } });
  // @ts-expect-error hidden columns are spelled nowhere: users.password_hash
  await client.users.list({ where: { password_hash: "x" } });
  // @ts-expect-error a group member is a filter of the same resource
  await client.tasks.list({ where: { or: [{ email: "x" }] } });
}

export async function sortSelectExpand(): Promise<void> {
  await client.tasks.list({ sort: ["-priority", "title"] });
  // @ts-expect-error summary is not sortable
  await client.tasks.list({ sort: ["summary"] });
  // @ts-expect-error descending needs the minus prefix, not a suffix
  await client.tasks.list({ sort: ["priority-"] });
  // @ts-expect-error hidden columns cannot be selected
  await client.users.list({ select: ["password_hash"] });
  // @ts-expect-error orgs has no expandable relation, so no expand
  await client.orgs.list({ expand: ["members"] });
  // @ts-expect-error watchers is not expandable
  await client.tasks.list({ expand: ["watchers"] });
  // @ts-expect-error task_watchers has no searchable column
  await client.taskWatchers.list({ search: "x" });

  const narrow = await client.tasks.list({ select: ["title", "status"] });
  type Narrow = (typeof narrow)["items"][number];
  assertType<Same<Narrow, Pick<TasksRow, "id" | "title" | "status">>>();
  for (const row of narrow.items) {
    const status: "todo" | "doing" | "blocked" | "done" = row.status;
    void status;
    // @ts-expect-error select narrowed the row
    void row.priority;
  }

  const whole = await client.tasks.list();
  assertType<Same<typeof whole, ListPage<TasksRow>>>();
  for (const row of whole.items) {
    // @ts-expect-error no expansion asked, so no relation member
    void row.list;
  }

  const wideList = await client.tasks.list({ select: ["title"], expand: ["list"] });
  for (const row of wideList.items) {
    const listTitle: string = row.list.title;
    void listTitle;
    // @ts-expect-error only the asked relations are added
    void row.comments;
  }

  const w = await client.tasks.get(1, { expand: ["list", "assignee", "comments"] });
  const listTitle: string = w.list.title;
  const assigneeName: string | undefined = w.assignee?.name;
  const firstComment: string | undefined = w.comments.items[0]?.body;
  const more: boolean = w.comments.has_more;
  void [listTitle, assigneeName, firstComment, more];
  // @ts-expect-error the assignee reference is nullable, so the expansion may be null
  void w.assignee.name;

  const read = await client.tasks.get(1, { expand: ["list"] });
  const readTitle: string = read.list.title;
  void readTitle;
  // @ts-expect-error a read takes only expand
  await client.tasks.get(1, { select: ["title"] });
}

export async function operations(): Promise<void> {
  const body: TasksCreate = { list_id: 1, title: "x", labels: [] };
  await client.tasks.create(body);
  await client.tasks.update(1, { estimate: null, status: "done" });
  // A Date where a filter takes one: a date column (written as its day) and a timestamptz (its instant).
  await client.tasks.create({ ...body, due_on: new Date() });
  await client.tasks.update(1, { due_on: new Date() });
  await client.lists.upsert([{ title: "x", position: 1, archived_at: new Date() }], { resolution: "merge" });
  // @ts-expect-error a Date is no text
  await client.tasks.create({ ...body, title: new Date() });
  await client.tasks.delete(1);
  await client.comments.create({ task_id: 1, body: "x" });
  // @ts-expect-error title is required on create
  await client.tasks.create({ list_id: 1, labels: [] });
  // @ts-expect-error created_at is read-only
  await client.tasks.create({ ...body, created_at: "2026-01-01T00:00:00Z" });
  // @ts-expect-error summary is computed
  await client.tasks.update(1, { summary: "x" });
  // @ts-expect-error title is not nullable
  await client.tasks.update(1, { title: null });
  // @ts-expect-error the key is immutable: absent from the update body
  await client.tasks.update(1, { id: 2 });
  // @ts-expect-error comments expose no update
  await client.comments.update("x", { body: "y" });
  // @ts-expect-error orgs are read-only: no create
  await client.orgs.create({});
  // @ts-expect-error users expose no delete
  await client.users.delete("x");
  // @ts-expect-error task_watchers is list-only: no read
  await client.taskWatchers.get("1");
  // @ts-expect-error a uuid key is a string
  await client.orgs.get(1);
}
