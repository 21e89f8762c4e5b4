/**
 * The five ceilings of a resource and the inverse expansion cap (spec:
 * Resource declaration, Limits): a negative ceiling is refused, 0 or absent
 * takes the package default, and a declared default page size may not
 * exceed the page-size ceiling that will be in force.
 */
import { DEFAULT_LIMITS } from "../../runtime/descriptor.js";
import type { ResourceDecl } from "../../language/ir.js";
import { exposedTables, qualified, settingSpan, type ValidationContext } from "./context.js";

/** The ceilings by setting key, as the resource block spells them. */
const CEILINGS: { key: string; get: (r: ResourceDecl) => number | undefined }[] = [
  { key: "default_page_size", get: (r) => r.defaultPageSize },
  { key: "max_page_size", get: (r) => r.maxPageSize },
  { key: "max_filters", get: (r) => r.maxFilters },
  { key: "max_sort_terms", get: (r) => r.maxSortTerms },
  { key: "max_offset", get: (r) => r.maxOffset },
  { key: "max_batch", get: (r) => r.maxBatch },
];

/** Reports `negative-ceiling`, `default-page-size-above-max` and `invalid-inverse-limit`. */
export function checkCeilings(ctx: ValidationContext): void {
  for (const { resource } of exposedTables(ctx.index.schema.tables)) {
    for (const { key, get } of CEILINGS) {
      const value = get(resource);
      if (value !== undefined && value < 0) {
        ctx.error(
          "negative-ceiling",
          `"${key}" must not be negative (got ${value}); 0 takes the package default`,
          settingSpan(resource, key),
        );
      }
    }
    const declared = resource.defaultPageSize ?? 0;
    const max = resource.maxPageSize && resource.maxPageSize > 0 ? resource.maxPageSize : DEFAULT_LIMITS.maxPageSize;
    if (declared > max) {
      ctx.error(
        "default-page-size-above-max",
        `"default_page_size" (${declared}) exceeds the page-size ceiling in force (${max})`,
        settingSpan(resource, "default_page_size"),
      );
    }
  }
  for (const table of ctx.index.schema.tables) {
    for (const column of table.columns) {
      const limit = column.inverse?.limit;
      if (column.inverse && limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
        ctx.error(
          "invalid-inverse-limit",
          `the limit of inverse "${column.inverse.name}" on "${qualified(table, column.name)}" must be a positive integer (got ${limit})`,
          column.inverse.span,
        );
      }
    }
  }
}
