/**
 * Prints plain data (a descriptor) as a TypeScript expression: keys bare
 * where possible, strings as JSON string literals, in the object's own key
 * order, so the output depends only on the data.
 */
import { propertyKey } from "./names.js";

/**
 * `value` as a TypeScript literal expression (unformatted; the caller runs
 * prettier). Object properties whose value is undefined are skipped.
 * @throws Error on a non-finite number, which has no literal
 */
export function printLiteral(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`cannot print ${value} as a literal`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(printLiteral).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{ ${entries.map(([k, v]) => `${propertyKey(k)}: ${printLiteral(v)}`).join(", ")} }`;
  }
  throw new Error(`cannot print a ${typeof value} as a literal`);
}
