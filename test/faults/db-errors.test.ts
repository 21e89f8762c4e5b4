/**
 * `toProblem` (runtime/http/db-errors.ts): each database fault becomes the
 * status docs/http.md gives it, and nothing the driver said (its message,
 * the constraint, a hidden column) reaches the problem document
 * (decisions 0900, 0901).
 */
import { describe, expect, it } from "vitest";
import type { ColumnDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import { toProblem } from "../../runtime/http/db-errors.js";

const column = (name: string, hidden = false): ColumnDescriptor => ({
  name,
  sqlType: "text",
  kind: "text",
  array: false,
  nullable: false,
  hasDefault: false,
  filterable: false,
  sortable: false,
  searchable: false,
  hidden,
  readOnly: false,
  immutable: false,
  softDelete: false,
});

const staff: TableDescriptor = {
  name: "staff",
  columns: [column("staff_id"), column("email"), column("password", true)],
  primaryKey: ["staff_id"],
  relations: [],
  scoped: false,
};

/** A driver error as pg raises it: a message plus the fields the server sent. */
const driverError = (fields: Record<string, unknown>, message = 'driver said SELECT secret FROM "staff"'): Error =>
  Object.assign(new Error(message), fields);

describe("toProblem", () => {
  it.each([
    [{ code: "ECONNREFUSED" }, "connect ECONNREFUSED 127.0.0.1:5432", 503],
    [{}, "timeout exceeded when trying to connect", 503],
    [{}, "timeout expired", 503],
    [{}, "Query read timeout", 503],
    [{}, "Connection terminated unexpectedly", 503],
    [{}, "Cannot use a pool after calling end on the pool", 503],
    [{}, "PGlite is closed", 503],
    [{ code: "57P01" }, "terminating connection due to administrator command", 503],
    [{ code: "53300" }, "sorry, too many clients already", 503],
    [{ code: "57014" }, "canceling statement due to statement timeout", 504],
    [{ code: "40001" }, "could not serialize access", 503],
    [{ code: "22003" }, "numeric field overflow", 400],
    [{ code: "54001" }, "stack depth limit exceeded", 400],
    [{ code: "23514", constraint: "year_check" }, 'new row violates check constraint "year_check"', 422],
    [{ code: "XX000" }, "internal error", 500],
  ])("%j %s → %i, saying nothing of the driver's text", (fields, message, status) => {
    const doc = toProblem(driverError(fields, message), staff).toDocument();
    expect(doc.status).toBe(status);
    const text = JSON.stringify(doc);
    expect(text).not.toContain(message);
    expect(text).not.toMatch(/year_check|127\.0\.0\.1|SELECT/);
  });

  it("names the column of a check violation by its constraint or its domain, and says 'a hidden column' for a hidden one", () => {
    const own = toProblem(driverError({ code: "23514", constraint: "staff_email_check" }), staff).toDocument();
    expect(own.errors).toEqual([{ location: "body.email", detail: "breaks the column's check" }]);
    const hidden = toProblem(driverError({ code: "23514", constraint: "staff_password_check" }), staff).toDocument();
    expect(hidden.detail).toBe("A hidden column's value breaks a rule.");
    expect(hidden.errors).toEqual([]);
    expect(JSON.stringify(hidden)).not.toContain("password");
    const other = toProblem(driverError({ code: "23514", constraint: "staff_check" }), staff).toDocument();
    expect(other.errors).toEqual([]);
  });

  it("names the column of a not-null violation, and says 'a hidden column' for a hidden one", () => {
    const visible = toProblem(driverError({ code: "23502", column: "email" }), staff).toDocument();
    expect(visible.status).toBe(422);
    expect(visible.detail).toBe("The column email requires a value; none was given and it has no default.");
    expect(visible.errors).toEqual([{ location: "body.email", detail: "must not be null" }]);
    const hidden = toProblem(driverError({ code: "23502", column: "password" }), staff).toDocument();
    expect(hidden.detail).toBe("A hidden column requires a value that neither the request nor a hook supplied.");
    expect(JSON.stringify(hidden)).not.toContain("password");
  });

  it("names a violated unique key by its visible columns, and by nothing when one is hidden", () => {
    const visible = toProblem(
      driverError({ code: "23505", detail: "Key (email)=(a@b.c) already exists.", constraint: "staff_email_key" }),
      staff,
    );
    expect(visible.status).toBe(409);
    expect(visible.errors).toEqual([{ location: "body.email", detail: "this value is already taken" }]);
    const hidden = toProblem(
      driverError({ code: "23505", detail: "Key (email, password)=(a, b) already exists." }),
      staff,
    );
    expect(hidden.errors).toEqual([]);
    expect(JSON.stringify(hidden.toDocument())).not.toMatch(/password|staff_email_key/);
  });

  it("reads a detail's quoted names and expressions, and falls back to the constraint's name when it has none", () => {
    const mapped: TableDescriptor = {
      ...staff,
      dbName: "Staff",
      columns: [column("staff_id"), { ...column("user_email"), dbName: "userEmail" }, column("password", true)],
      constraints: { Staff_userEmail_key: ["user_email"], Staff_secret_idx: ["password"], Staff_pkey: ["staff_id"] },
    };
    const at = (fields: Record<string, unknown>) => toProblem(driverError(fields), mapped).errors;
    const taken = [{ location: "body.user_email", detail: "this value is already taken" }];
    expect(at({ code: "23505", detail: 'Key ("userEmail")=(a) already exists.' })).toEqual(taken);
    expect(at({ code: "23505", detail: 'Key (lower("userEmail"::text))=(a) already exists.' })).toEqual(taken);
    // No detail (row-level security, a column the role may not read): the constraint's name tells.
    expect(at({ code: "23505", constraint: "Staff_userEmail_key" })).toEqual(taken);
    expect(at({ code: "23503", constraint: "Staff_userEmail_key" })).toEqual([
      { location: "body.user_email", detail: "no such referenced row, or still referenced" },
    ]);
    // A hidden column is never named, by detail or by constraint; an unknown constraint names nothing.
    expect(at({ code: "23505", constraint: "Staff_secret_idx" })).toEqual([]);
    expect(at({ code: "23505", detail: "Key (lower(password))=(x) already exists." })).toEqual([]);
    expect(at({ code: "23505", constraint: "somebody_elses_key" })).toEqual([]);
  });
});
