import { describe, expect, it } from "vitest";
import { buildDescriptor } from "../../compiler/descriptor.js";
import type { ColumnDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import { parseOk } from "./helpers.js";
import { validate } from "../../compiler/validate/index.js";

const src = `
api {
  title = "Shop"
  version = "2.0.0"
  security bearerAuth { scheme = "bearer", bearer_format = "JWT" }
}

enum mpaa_rating { G PG "PG-13" }
domain year integer @check("VALUE >= 1901")

table language {
  language_id integer @primary_key @default(identity)
  name        character(20) @filterable @sortable
  resource "/languages" { ops = [reads] }
}

table film {
  film_id      integer @primary_key @default(identity)
  title        varchar(255) @filterable @sortable(nulls: last) @searchable
  release_year year? @filterable
  rental_rate  numeric(4,2) @default(4.99)
  rating       mpaa_rating? @filterable
  features     text[]? @filterable
  score        double precision?
  big          bigint?
  language_id  integer @ref(language, language, expandable) @filterable
                       @inverse(films, expandable, order: [-title], limit: 10)
  deleted_at   timestamptz? @soft_delete
  secret       text? @hidden
  shout        text @computed("upper(title)") @searchable
  @@index([language_id])
  @@index([features], using: gin)
  resource "/films" {
    ops = [crud, list]
    default_sort = [title]
    max_page_size = 10
    max_offset = 0
    security = [bearerAuth]
  }
}
`;

function table(name: string): TableDescriptor {
  const t = buildDescriptor(parseOk(src, "shop.resource")).tables.find((x) => x.name === name);
  if (!t) throw new Error(`no table ${name}`);
  return t;
}

function column(t: TableDescriptor, name: string): ColumnDescriptor {
  const c = t.columns.find((x) => x.name === name);
  if (!c) throw new Error(`no column ${name}`);
  return c;
}

describe("buildDescriptor", () => {
  it("starts from a valid schema", () => {
    expect(validate(parseOk(src, "shop.resource"))).toEqual([]);
  });

  it("carries the api block", () => {
    const d = buildDescriptor(parseOk(src, "shop.resource"));
    expect({ title: d.title, version: d.version, securitySchemes: d.securitySchemes }).toEqual({
      title: "Shop",
      version: "2.0.0",
      securitySchemes: [{ name: "bearerAuth", scheme: "bearer", bearerFormat: "JWT" }],
    });
    expect(d.tables.map((t) => t.name)).toEqual(["language", "film"]);
  });

  it("defaults title and version without an api block (decision 0208)", () => {
    const d = buildDescriptor(parseOk("table t {\n  id bigint @primary_key\n}\n", "dir/my-app.resource"));
    expect([d.title, d.version]).toEqual(["my-app", "0.0.0"]);
  });

  it("maps value kinds and bind-parameter cast types", () => {
    const film = table("film");
    const pick = (n: string) => {
      const c = column(film, n);
      return { kind: c.kind, sqlType: c.sqlType, array: c.array };
    };
    expect(pick("title")).toEqual({ kind: "text", sqlType: "varchar", array: false });
    expect(pick("release_year")).toEqual({ kind: "integer", sqlType: "integer", array: false });
    expect(pick("rental_rate")).toEqual({ kind: "numeric", sqlType: "numeric", array: false });
    expect(pick("rating")).toEqual({ kind: "enum", sqlType: "mpaa_rating", array: false });
    expect(pick("features")).toEqual({ kind: "text", sqlType: "text[]", array: true });
    expect(pick("score")).toEqual({ kind: "float", sqlType: "double precision", array: false });
    expect(pick("big")).toEqual({ kind: "bigint", sqlType: "bigint", array: false });
    expect(pick("deleted_at")).toEqual({ kind: "timestamptz", sqlType: "timestamptz", array: false });
    expect(column(table("language"), "name")).toMatchObject({ kind: "text", sqlType: "bpchar" });
    expect(column(film, "rating").enumValues).toEqual(["G", "PG", "PG-13"]);
    expect(column(film, "title").enumValues).toBeUndefined();
  });

  it("maps capabilities, defaults and computed columns", () => {
    const film = table("film");
    expect(column(film, "title")).toEqual({
      name: "title",
      sqlType: "varchar",
      kind: "text",
      array: false,
      nullable: false,
      hasDefault: false,
      filterable: true,
      sortable: true,
      nulls: "last",
      searchable: true,
      hidden: false,
      readOnly: false,
      immutable: false,
      softDelete: false,
      // varchar(255): checked in write bodies before the database (docs/decisions/1254-value-limits.md).
      maxLength: 255,
    });
    expect(column(film, "film_id").hasDefault).toBe(true);
    expect(column(film, "rental_rate").hasDefault).toBe(true);
    expect(column(film, "secret")).toMatchObject({ hidden: true, nullable: true, hasDefault: false });
    expect(column(film, "shout")).toMatchObject({
      computed: "upper(title)",
      hasDefault: true,
      readOnly: true,
      immutable: true,
      searchable: true,
    });
    expect(film.softDeleteColumn).toBe("deleted_at");
    expect(film.primaryKey).toEqual(["film_id"]);
  });

  it("puts a forward relation on the referencing table and the inverse on the target", () => {
    expect(table("film").relations).toEqual([
      {
        name: "language",
        kind: "forward",
        target: "language",
        column: "language_id",
        targetColumn: "language_id",
        expandable: true,
        order: [],
      },
    ]);
    expect(table("language").relations).toEqual([
      {
        name: "films",
        kind: "inverse",
        target: "film",
        column: "language_id",
        targetColumn: "language_id",
        expandable: true,
        order: [{ column: "title", descending: true }],
        limit: 10,
      },
    ]);
  });

  it("resolves the resource: ops, sort, ceilings, security, computed", () => {
    expect(table("film").resource).toEqual({
      path: "/films",
      ops: { list: true, read: true, create: true, update: true, delete: true },
      defaultSort: [{ column: "title", descending: false }],
      limits: { defaultPageSize: 10, maxPageSize: 10, maxFilters: 24, maxSortTerms: 4, maxOffset: 100000, maxBatch: 1000 },
      security: [{ scheme: "bearerAuth", scopes: [] }],
      disableTransactions: false,
      computed: ["shout"],
    });
    expect(table("language").resource?.ops).toEqual({
      list: true,
      read: true,
      create: false,
      update: false,
      delete: false,
    });
  });
});
