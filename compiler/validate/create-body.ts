/**
 * A resource that creates rows must be able to store one: every stored
 * column the database requires (NOT NULL, no default, not numbered by a
 * serial type) is either carried by the create body or set by a hook the
 * schema declares (docs/decisions/1253-create-body-completeness.md). A
 * `@hidden` or `@read_only` column is in no create body, so such a column
 * made every create a 422 with nothing to correct. It passes when it is
 * `@stamped` (the BeforeCreate hook that sets it is then required before
 * the resource mounts), or when every access block granting create stamps
 * it from a claim (docs/decisions/1367-access-rules.md).
 */
import { stampedOnEveryCreate } from "../access.js";
import { attributeSpan, qualified, type ValidationContext } from "./context.js";

/**
 * Reports `required-column-unwritable`, once per column, and warns
 * `ignored-required-column` for an `@ignore` column the database must fill
 * on every create (a trigger does in an adopted database; `resc sql` makes
 * none, docs/decisions/1259-ignored-columns.md).
 */
export function checkCreateBody(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    if (!table.resource?.ops.includes("create")) continue;
    for (const column of table.columns) {
      if (column.nullable || column.default !== undefined || column.computed !== undefined || column.stamped) continue;
      const type = ctx.index.resolve(column.type);
      if (type.base.kind === "builtin" && type.base.type.serial) continue;
      const why = column.hidden ? "hidden" : column.readOnly ? "read-only" : undefined;
      if (why === undefined) continue;
      // Every role that may create stamps it from a claim (docs/decisions/1367-access-rules.md).
      if (stampedOnEveryCreate(table, column.name)) continue;
      const name = qualified(table, column.name);
      ctx.error(
        "required-column-unwritable",
        `column "${name}" is required but ${why}: no create body can carry it, so every create of ${table.resource.path} would fail. ` +
          `Give it a @default(…), make it nullable (${column.type.name}?), mark it @stamped and set it in a BeforeCreate hook, ` +
          `or take create out of the resource's ops`,
        attributeSpan(column, why === "hidden" ? "hidden" : "read_only"),
      );
    }
    for (const column of table.ignored) {
      if (column.nullable || column.default !== undefined) continue;
      const type = ctx.index.resolve(column.type);
      if (type.base.kind === "builtin" && type.base.type.serial) continue;
      ctx.warning(
        "ignored-required-column",
        `column "${qualified(table, column.name)}" is @ignore and required: a create of ${table.resource.path} succeeds only ` +
          "where the database fills it (a trigger, as in the database it was adopted from); resc sql makes no trigger",
        attributeSpan(column, "ignore"),
      );
    }
  }
}
