/**
 * The two real schemas parse with zero diagnostics and say what they must:
 * spec.resource (the reference application) and the Pagila fixture
 * (docs/pagila-mapping.md).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { column, table } from "./helpers.js";

function load(rel: string) {
  const file = fileURLToPath(new URL(`../../${rel}`, import.meta.url));
  return parse(readFileSync(file, "utf8"), rel);
}

describe("spec.resource", () => {
  const r = load("spec.resource");

  it("parses with zero diagnostics", () => {
    expect(r.diagnostics).toEqual([]);
  });

  it("declares the API, the generator and the bearer scheme", () => {
    expect(r.schema.api).toMatchObject({ title: "Task Tracker", version: "1.4.0" });
    expect(r.schema.api?.securitySchemes).toMatchObject([
      { name: "bearerAuth", scheme: "bearer", bearerFormat: "JWT" },
    ]);
    expect(r.schema.generate).toMatchObject({
      dir: "examples/tracker/generated",
      package: "tracker",
      cliDir: "cli",
      cliName: "tracker",
      clientDir: "client",
    });
  });

  it("uses every capability of the spec at least once", () => {
    const cols = r.schema.tables.flatMap((t) => t.columns);
    const resources = r.schema.tables.flatMap((t) => (t.resource ? [t.resource] : []));
    expect(cols.some((c) => c.hidden)).toBe(true);
    expect(cols.some((c) => c.type.arrayDims > 0 && c.filterable)).toBe(true);
    expect(cols.some((c) => c.type.name === "jsonb")).toBe(true);
    expect(cols.some((c) => c.type.name === "task_status")).toBe(true);
    expect(cols.some((c) => c.type.name === "date" && c.nullable && c.sortable?.nulls === "last")).toBe(true);
    expect(cols.some((c) => c.computed !== undefined && c.searchable)).toBe(true);
    expect(cols.some((c) => c.softDelete)).toBe(true);
    expect(cols.some((c) => c.ref?.expandable)).toBe(true);
    expect(cols.some((c) => c.inverse?.expandable && c.inverse.order.length > 0 && c.inverse.limit !== undefined)).toBe(
      true,
    );
    expect(cols.some((c) => c.readOnly)).toBe(true);
    expect(cols.some((c) => c.immutable)).toBe(true);
    expect(cols.some((c) => c.default !== undefined)).toBe(true);
    expect(cols.some((c) => c.type.name === "numeric" && c.type.args.length === 2)).toBe(true);
    expect(cols.some((c) => c.type.name === "bytea" && c.hidden)).toBe(true);
    expect(cols.some((c) => c.type.name === "uuid")).toBe(true);
    expect(cols.some((c) => c.type.name === "varchar" && c.type.args.length === 1)).toBe(true);
    expect(cols.some((c) => c.type.name === "character" && c.type.args.length === 1)).toBe(true);
    expect(r.schema.domains.length).toBeGreaterThan(0);
    expect(r.schema.tables.some((t) => t.scoped)).toBe(true);
    expect(r.schema.tables.some((t) => !t.resource)).toBe(true);
    expect(r.schema.tables.some((t) => t.doc) && cols.some((c) => c.doc) && resources.some((x) => x.doc)).toBe(true);
    expect(resources.some((x) => x.disableTransactions)).toBe(true);
    expect(resources.some((x) => x.computed !== undefined)).toBe(true);
    expect(
      resources.some((x) => x.defaultPageSize && x.maxPageSize && x.maxFilters && x.maxSortTerms && x.maxOffset),
    ).toBe(true);
    expect(resources.filter((x) => x.security.some((s) => s.scheme === "bearerAuth")).length).toBeGreaterThan(
      resources.length / 2,
    );
  });

  it("has a composite-key link table exposed list-only with forward references", () => {
    const w = table(r.schema, "task_watchers");
    expect(w.primaryKey).toEqual(["task_id", "user_id"]);
    expect(w.resource?.ops).toEqual(["list"]);
    expect(column(w, "task_id").ref).toMatchObject({ target: "tasks", expandable: true });
    expect(column(w, "user_id").ref).toMatchObject({ target: "users", expandable: true });
  });

  it("indexes every filterable array with GIN and every reference", () => {
    for (const t of r.schema.tables) {
      for (const c of t.columns) {
        if (c.type.arrayDims > 0 && c.filterable) {
          expect(
            t.indexes.some((i) => i.using === "gin" && i.columns[0] === c.name),
            `${t.name}.${c.name}`,
          ).toBe(true);
        }
        if (c.ref) {
          const led = t.primaryKey[0] === c.name || t.indexes.some((i) => i.columns[0] === c.name);
          expect(led, `${t.name}.${c.name} indexed`).toBe(true);
          if (c.inverse) expect(c.filterable, `${t.name}.${c.name} filterable`).toBe(true);
        }
      }
    }
  });
});

describe("fixtures/pagila/pagila.resource", () => {
  const r = load("fixtures/pagila/pagila.resource");

  it("parses with zero diagnostics", () => {
    expect(r.diagnostics).toEqual([]);
  });

  it("exposes the mapping's resources with their ops", () => {
    const exposure = Object.fromEntries(
      r.schema.tables.map((t) => [t.resource?.path, [t.name, t.resource?.ops.join(",")]]),
    );
    const crudList = "list,read,create,update,delete";
    expect(exposure).toEqual({
      "/films": ["film", crudList],
      "/actors": ["actor", crudList],
      "/film_actors": ["film_actor", "list,read"],
      "/categories": ["category", "list,read"],
      "/film_categories": ["film_category", "list"],
      "/languages": ["language", "list,read"],
      "/customers": ["customer", "list,read,create,update"],
      "/addresses": ["address", "list,read"],
      "/cities": ["city", "list,read"],
      "/countries": ["country", "list,read"],
      "/inventory": ["inventory", "list,read"],
      "/rentals": ["rental", "list,read,create,update"],
      "/payments": ["payment", "list"],
      "/staff": ["staff", "list,read"],
      "/stores": ["store", "list,read"],
    });
  });

  it("names relations as the mapping does, inverses with their orders and limits", () => {
    const forward: string[] = [];
    const inverse: string[] = [];
    for (const t of r.schema.tables) {
      for (const c of t.columns) {
        if (c.ref) forward.push(`${t.name}.${c.name}:${c.ref.relation}->${c.ref.target}`);
        if (c.inverse) {
          const order = c.inverse.order.map((o) => (o.descending ? "-" : "") + o.column).join(",");
          inverse.push(`${c.ref?.target}.${c.inverse.name}<-${t.name}.${c.name}[${order}]${c.inverse.limit ?? ""}`);
        }
      }
    }
    expect(forward).toContain("store.manager_staff_id:manager->staff");
    expect(forward).toContain("film.original_language_id:original_language->language");
    expect(forward.filter((f) => f.startsWith("payment."))).toEqual([
      "payment.customer_id:customer->customer",
      "payment.staff_id:staff->staff",
      "payment.rental_id:rental->rental",
    ]);
    expect(inverse.sort()).toEqual([
      "actor.film_roles<-film_actor.actor_id[film_id]",
      "category.films<-film_category.category_id[]",
      "city.addresses<-address.city_id[]",
      "country.cities<-city.country_id[city]",
      "customer.payments<-payment.customer_id[-payment_date]",
      "customer.rentals<-rental.customer_id[-rental_date]10",
      "film.cast<-film_actor.film_id[actor_id]20",
      "film.categories<-film_category.film_id[]",
      "film.inventory<-inventory.film_id[inventory_id]",
      "language.films<-film.language_id[title]10",
    ]);
  });

  it("keeps the dump's types, keys and defaults", () => {
    const film = table(r.schema, "film");
    expect(column(film, "rental_rate").type).toMatchObject({ name: "numeric", args: [4, 2] });
    expect(column(film, "release_year")).toMatchObject({ type: { name: "year" }, nullable: true });
    expect(column(film, "rating")).toMatchObject({
      type: { name: "mpaa_rating" },
      default: { kind: "enum-value", value: "G" },
    });
    expect(column(film, "special_features")).toMatchObject({
      type: { name: "text", arrayDims: 1 },
      nullable: true,
      filterable: true,
    });
    expect(film.columns.some((c) => c.name === "fulltext")).toBe(false);
    expect(film.indexes.filter((i) => i.using === "gin").map((i) => i.columns)).toEqual([["special_features"]]);
    expect(column(table(r.schema, "language"), "name").type).toMatchObject({ name: "character", args: [20] });
    expect(table(r.schema, "payment").primaryKey).toEqual(["payment_date", "payment_id"]);
    expect(table(r.schema, "film_actor").primaryKey).toEqual(["actor_id", "film_id"]);
    expect(table(r.schema, "film_category").primaryKey).toEqual(["film_id", "category_id"]);
    expect(r.schema.enums).toMatchObject([{ name: "mpaa_rating", values: ["G", "PG", "PG-13", "R", "NC-17"] }]);
    expect(column(table(r.schema, "staff"), "picture")).toMatchObject({
      type: { name: "bytea" },
      hidden: true,
      nullable: true,
    });
  });

  it("makes last_update read-only and sortable, and every primary key sortable, everywhere", () => {
    for (const t of r.schema.tables) {
      const lu = t.columns.find((c) => c.name === "last_update");
      if (lu) expect([t.name, lu.readOnly, lu.sortable !== undefined]).toEqual([t.name, true, true]);
      for (const k of t.primaryKey) expect([t.name, k, column(t, k).sortable !== undefined]).toEqual([t.name, k, true]);
    }
  });
});
