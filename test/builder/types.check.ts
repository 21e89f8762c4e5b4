/**
 * Compile-only checks of the query builder's types (docs/decisions/0602-query-builder.md), over the
 * schema type the Hono backend generates for spec.resource (its golden
 * file). `npm run typecheck` compiles this file: every `@ts-expect-error`
 * line must fail to compile (an unused one is itself an error), and every
 * other line must compile. Nothing here runs; test/builder/query.test.ts
 * runs the same calls against a database.
 */
import type { TrackerSchema } from "../../fixtures/spec/expected/hono/tracker/service.js";
import type { Executor } from "../../runtime/exec/executor.js";
import type { JsonValue } from "../../runtime/predicate.js";
import { createQueryBuilder, type TypedService } from "../../runtime/index.js";

/** True when A and B are the same type; a mismatch makes the assignment below fail. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | void {}

declare const service: TypedService<TrackerSchema>;
declare const db: Executor;
const q = createQueryBuilder(service, { db, data: { orgId: "o" } });

export async function typeChecks(): Promise<void> {
  // Tables: only the schema's.
  q.from("tasks");
  q.from("audit_events");
  // @ts-expect-error no such table
  q.from("taks");

  // Enum columns take only their values.
  q.from("tasks").where("status", "eq", "todo");
  q.from("tasks").where("status", "in", ["todo", "doing"]);
  // @ts-expect-error not a task_status value
  q.from("tasks").where("status", "eq", "nope");
  // @ts-expect-error one list member is not a task_status value
  q.from("tasks").where("status", "in", ["todo", "nope"]);
  // Enums take the text set (spec: enum), with text patterns.
  q.from("tasks").where("status", "startswith", "do");

  // Text operators only on text.
  q.from("tasks").where("title", "contains", "pump");
  q.from("tasks").where("title", "ilike", "%PUMP%");
  // @ts-expect-error contains on an integer column
  q.from("tasks").where("priority", "contains", "1");
  // @ts-expect-error contains on a uuid column
  q.from("tasks").where("assignee_id", "contains", "0000");

  // Values typed by column type.
  q.from("tasks").where("priority", "gte", 3);
  q.from("tasks").where("priority", "between", [1, 3]);
  q.from("tasks").where("estimate", "gt", "1.50");
  q.from("tasks").where("estimate", "gt", 1.5);
  q.from("tasks").where("id", "eq", 10n);
  q.from("tasks").where("due_on", "lt", new Date());
  q.from("tasks").where("due_on", "lt", "2026-12-01");
  q.from("tasks").where("created_at", "gte", new Date());
  // @ts-expect-error a string for an integer column
  q.from("tasks").where("priority", "eq", "3");
  // @ts-expect-error between takes a pair
  q.from("tasks").where("priority", "between", [1]);
  // @ts-expect-error in takes a list
  q.from("tasks").where("priority", "in", 1);
  // @ts-expect-error a Date for a text column
  q.from("tasks").where("title", "eq", new Date());

  // Null tests only on nullable columns, with no value.
  q.from("tasks").where("assignee_id", "isnull");
  q.from("tasks").where("due_on", "notnull");
  // @ts-expect-error title is not nullable
  q.from("tasks").where("title", "isnull");
  // @ts-expect-error isnull takes no value
  q.from("tasks").where("assignee_id", "isnull", null);

  // Arrays: the containment vocabulary; has takes an element, hasany a list.
  q.from("tasks").where("labels", "has", "design");
  q.from("tasks").where("labels", "hasany", ["design", "safety"]);
  q.from("tasks").where("labels", "nhasall", ["design"]);
  q.from("tasks").where("labels", "eq", []);
  // @ts-expect-error has takes one element
  q.from("tasks").where("labels", "has", ["design"]);
  // @ts-expect-error hasany takes a list
  q.from("tasks").where("labels", "hasany", "design");
  // @ts-expect-error no ordering on arrays
  q.from("tasks").where("labels", "gt", ["a"]);
  // @ts-expect-error no in on arrays
  q.from("tasks").where("labels", "in", ["a"]);
  // @ts-expect-error no pattern on arrays
  q.from("tasks").where("labels", "contains", "a");

  // Documents: hasdoc and nhasdoc.
  q.from("tasks").where("attrs", "hasdoc", { source: "jira" });
  q.from("tasks").where("attrs", "nhasdoc", { note: "legal" });
  // @ts-expect-error no ordering on documents
  q.from("tasks").where("attrs", "gt", {});
  // @ts-expect-error hasdoc on text
  q.from("tasks").where("title", "hasdoc", { a: 1 });

  // Hidden columns are spelled nowhere; computed ones are not filtered or sorted.
  // @ts-expect-error tasks.deleted_at is hidden
  q.from("tasks").where("deleted_at", "isnull");
  // @ts-expect-error users.password_hash is hidden
  q.from("users").select("password_hash");
  // @ts-expect-error users.avatar is hidden
  q.from("users").orderBy("avatar");
  // @ts-expect-error summary is computed
  q.from("tasks").where("summary", "contains", "x");
  q.from("tasks").select("summary");

  // Any non-hidden stored column may be filtered in process, Filterable or not.
  q.from("tasks").where("position", "eq", 1);

  // orderBy: only Sortable columns, `-` for descending.
  q.from("tasks").orderBy("-created_at", "title");
  // @ts-expect-error labels is not sortable
  q.from("tasks").orderBy("labels");
  // @ts-expect-error list_id is not sortable
  q.from("tasks").orderBy("-list_id");

  // Groups.
  q.from("tasks").where((w) =>
    w.or(w("status", "eq", "todo"), w.and(w("priority", "gte", 3), w.not(w("labels", "has", "x")))),
  );
  // @ts-expect-error the group's comparisons are typed too
  q.from("tasks").where((w) => w("status", "eq", "nope"));

  // Rows: every visible column, or what select names plus the key.
  const all = await q.from("tasks").all();
  assertType<Equal<(typeof all)[number]["status"], "todo" | "doing" | "blocked" | "done">>();
  assertType<Equal<(typeof all)[number]["attrs"], JsonValue | null>>();
  assertType<Equal<(typeof all)[number]["estimate"], string | null>>();
  const picked = await q.from("tasks").select("title", "due_on").orderBy("-created_at").limit(10).all();
  assertType<Equal<(typeof picked)[number], { id: number; title: string; due_on: string | null }>>();
  // @ts-expect-error status was not selected
  void picked[0].status;

  // Expansions by relation name: the target row or null, or a collection.
  const t = await q.from("tasks").select("title").expand("list", "comments").first();
  assertType<
    Equal<
      NonNullable<typeof t>["list"],
      {
        id: number;
        org_id: string;
        title: string;
        position: number;
        color: string | null;
        archived_at: string | null;
      } | null
    >
  >();
  assertType<Equal<NonNullable<typeof t>["comments"]["has_more"], boolean>>();
  assertType<Equal<NonNullable<typeof t>["comments"]["items"][number]["body"], string>>();
  // @ts-expect-error members is declared but not expandable
  q.from("users").expand("members");
  // @ts-expect-error relations are named by relation, never by column
  q.from("tasks").expand("list_id");

  // byKey takes the key's type; a composite key has none.
  const one = await q.from("tasks").byKey(1);
  assertType<Equal<typeof one, (typeof all)[number] | undefined>>();
  await q.from("users").byKey("00000000-0000-4000-8000-000000000101");
  // @ts-expect-error tasks' key is a number
  await q.from("tasks").byKey(true);
  // @ts-expect-error task_watchers has a composite key
  await q.from("task_watchers").byKey(1);

  const n = await q.from("tasks").where("status", "eq", "todo").count();
  assertType<Equal<typeof n, number>>();

  // An explicit schema type on a plain descriptor works the same.
  const plain = createQueryBuilder<TrackerSchema>(service as import("../../runtime/index.js").ServiceDescriptor, {
    db,
  });
  // @ts-expect-error still typed
  plain.from("tasks").where("status", "eq", "nope");
}
