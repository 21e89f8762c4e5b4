/**
 * A small schema for the SQL compiler tests: a parent/child pair covering
 * every column kind the compiler formats, with nullable, hidden and computed
 * columns, and hand-written descriptors for it.
 */
import type {
  ColumnDescriptor,
  RelationDescriptor,
  ResourceDescriptor,
  ServiceDescriptor,
  TableDescriptor,
} from "../../runtime/descriptor.js";
import { DEFAULT_LIMITS } from "../../runtime/descriptor.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { encodeRow, type RowStatement } from "../../runtime/sql/members.js";
import type { ListQuery } from "../../runtime/query/types.js";

export const SCHEMA = `
CREATE TYPE mood AS ENUM ('happy', 'sad', 'meh');
CREATE TABLE parent (
  id integer PRIMARY KEY,
  name text NOT NULL,
  secret text
);
CREATE TABLE item (
  id integer PRIMARY KEY,
  parent_id integer REFERENCES parent (id),
  title text NOT NULL,
  note text,
  qty integer,
  big bigint,
  price numeric(10, 2),
  mood mood,
  tags text[],
  attrs jsonb,
  due date,
  at timestamptz,
  local timestamp,
  code character(5),
  blob bytea,
  done boolean,
  days date[],
  secret text
);
CREATE TABLE counter (
  id serial PRIMARY KEY,
  created date NOT NULL DEFAULT '2001-01-01'
);
INSERT INTO parent VALUES (1, 'P one', 'p-secret'), (2, 'P two', NULL), (3, 'P three', NULL);
INSERT INTO item VALUES
  (1, 1, 'Alpha', 'first', 10, 9007199254740993, 1.50, 'happy', '{a,b}', '{"k": 1, "x": {"y": 2}}',
   '2006-02-14', '2020-01-02 03:04:05.123456+00', '2020-01-02 03:04:05', 'ab', '\\x0102', true,
   '{2006-02-14,NULL}', 's1'),
  (2, 1, '100% pure', NULL, 20, 2, 2.25, 'sad', '{b,c}', '{"k": 2}',
   NULL, '2021-06-01 00:00:00+00', NULL, NULL, NULL, false, '{}', 's2'),
  (3, 2, 'under_score', 'x', NULL, 3, NULL, NULL, NULL, NULL,
   '2020-02-29', NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, NULL, 'back\\slash', 'Second', 5, 4, 10.00, 'meh', '{}', '{"k": 1}',
   '2021-01-01', '2019-12-31 23:59:59.5+00', NULL, NULL, NULL, true, NULL, NULL),
  (5, 2, 'O''Brien', 'third', 30, 5, 0.10, 'happy', '{a,"with,comma","quote\\"d"}', '{"k": "1"}',
   NULL, '2020-01-02 03:04:05.123457+00', NULL, NULL, NULL, false, NULL, NULL),
  (6, 1, 'alphabet', 'fourth', 20, 6, 2.25, 'sad', '{c}', '{"x": {"y": 2, "z": 3}}',
   '2006-02-14', '2022-01-01 09:00:00+09', NULL, NULL, NULL, true, NULL, NULL);
`;

/** Loads {@link SCHEMA} (with standard_conforming_strings on, the default). */
export async function loadSchema(db: Executor): Promise<void> {
  await db.script(SCHEMA);
}

/** A column descriptor for hand-written test tables: nullable, filterable and sortable unless `extra` says otherwise. */
export function column(
  name: string,
  sqlType: string,
  kind: ColumnDescriptor["kind"],
  extra: Partial<ColumnDescriptor> = {},
): ColumnDescriptor {
  return {
    name,
    sqlType,
    kind,
    array: false,
    nullable: true,
    hasDefault: false,
    filterable: true,
    sortable: true,
    searchable: false,
    hidden: false,
    readOnly: false,
    immutable: false,
    softDelete: false,
    ...extra,
  };
}

function resource(path: string, computed: string[] = []): ResourceDescriptor {
  return {
    path,
    ops: { list: true, read: true, create: true, update: true, delete: true },
    defaultSort: [],
    limits: { ...DEFAULT_LIMITS },
    security: [],
    disableTransactions: false,
    computed,
  };
}

function relation(
  r: Partial<RelationDescriptor> & Pick<RelationDescriptor, "name" | "kind" | "target" | "column" | "targetColumn">,
): RelationDescriptor {
  return { expandable: true, order: [], ...r };
}

export const item: TableDescriptor = {
  name: "item",
  primaryKey: ["id"],
  scoped: false,
  columns: [
    column("id", "integer", "integer", { nullable: false }),
    column("parent_id", "integer", "integer"),
    column("title", "text", "text", { nullable: false, searchable: true }),
    column("note", "text", "text", { nulls: "first", searchable: true }),
    column("qty", "integer", "integer"),
    column("big", "bigint", "bigint"),
    column("price", "numeric(10,2)", "numeric"),
    column("mood", '"mood"', "enum", { enumValues: ["happy", "sad", "meh"], searchable: true }),
    column("tags", "text[]", "text", { array: true, sortable: false }),
    column("attrs", "jsonb", "jsonb", { sortable: false }),
    column("due", "date", "date", { nulls: "last" }),
    column("at", "timestamptz", "timestamptz"),
    column("local", "timestamp", "timestamp"),
    column("code", "character(5)", "text"),
    column("blob", "bytea", "bytea"),
    column("done", "boolean", "boolean"),
    column("days", "date[]", "date", { array: true, sortable: false }),
    column("secret", "text", "text", { hidden: true, searchable: true }),
    column("summary", "text", "text", { computed: "title || ' ' || coalesce(note, '')", searchable: true }),
    column("shout", "text", "text", { computed: "'zz' || title", searchable: true }),
  ],
  relations: [relation({ name: "parent", kind: "forward", target: "parent", column: "parent_id", targetColumn: "id" })],
  resource: resource("/items", ["summary"]),
};

export const parent: TableDescriptor = {
  name: "parent",
  primaryKey: ["id"],
  scoped: false,
  columns: [
    column("id", "integer", "integer", { nullable: false }),
    column("name", "text", "text", { nullable: false, searchable: true }),
    column("secret", "text", "text", { hidden: true }),
  ],
  relations: [
    relation({
      name: "items",
      kind: "inverse",
      target: "item",
      column: "parent_id",
      targetColumn: "id",
      order: [{ column: "qty", descending: true }],
      limit: 2,
    }),
    relation({ name: "all_items", kind: "inverse", target: "item", column: "parent_id", targetColumn: "id" }),
    relation({
      name: "locked",
      kind: "inverse",
      target: "item",
      column: "parent_id",
      targetColumn: "id",
      expandable: false,
    }),
  ],
  resource: resource("/parents"),
};

export const counter: TableDescriptor = {
  name: "counter",
  primaryKey: ["id"],
  scoped: false,
  columns: [
    column("id", "integer", "integer", { nullable: false, hasDefault: true }),
    column("created", "date", "date", { nullable: false, hasDefault: true }),
  ],
  relations: [],
};

export const service: ServiceDescriptor = {
  title: "sql tests",
  version: "0",
  securitySchemes: [],
  tables: [item, parent, counter],
};

/** A list query in key order, 100 per page, with `overrides` applied. */
export function listQuery(overrides: Partial<ListQuery> = {}): ListQuery {
  return {
    sort: [{ column: "id", descending: false }],
    sortRequested: false,
    expand: [],
    page: 1,
    perPage: 100,
    offset: 0,
    count: false,
    ...overrides,
  };
}

/** Runs a list or read statement and writes its row objects, as the handlers do (decision 0805). */
export async function rowTexts(db: Executor, stmt: RowStatement): Promise<string[]> {
  return (await db.query(stmt)).rows.map((row) => encodeRow(row, stmt.layout));
}

/** {@link rowTexts}, parsed. */
export async function rowObjects(db: Executor, stmt: RowStatement): Promise<Record<string, unknown>[]> {
  return (await rowTexts(db, stmt)).map((t) => JSON.parse(t) as Record<string, unknown>);
}
