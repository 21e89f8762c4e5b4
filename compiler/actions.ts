/**
 * How a declared action is named in everything generated from it
 * (docs/decisions/1334-declared-actions.md): its route, the typed client's
 * method, the CLI command, the OpenAPI operation and schemas. One module, so
 * the validator refuses exactly the names that would clash in a backend.
 */
import { actionPath, type ActionDescriptor } from "../runtime/descriptor.js";
import { camelCase, pascalCase } from "./case.js";

/** `mark_paid` → `markPaid`: the typed client's method (`client.rentals.markPaid(id, input)`). */
export function actionMethodName(name: string): string {
  return camelCase(name);
}

/** `mark_paid` → `mark-paid`: the CLI command (`pagila rentals mark-paid 42`). */
export function actionCommandName(name: string): string {
  return name.replace(/_/g, "-");
}

/**
 * `rental`, `return` → `RentalReturnInput`, `RentalReturnOutput`: the names
 * of an action's input and output, the same in the typed client's types and
 * the OpenAPI document's schemas.
 */
export function actionTypeNames(table: string, action: string): { input: string; output: string } {
  const stem = `${pascalCase(table)}${pascalCase(action)}`;
  return { input: `${stem}Input`, output: `${stem}Output` };
}

/** The route of `action` under the collection path `path`, in OpenAPI's spelling: `/rentals/{id}/return` (runtime's `actionPath`). */
export function actionRoute(path: string, action: Pick<ActionDescriptor, "name" | "target">): string {
  return actionPath(path, action);
}

/** Members of a generated client resource class an action method may not take (compiler/backends/client/resource-class.ts). */
const CLIENT_MEMBERS = [
  "list",
  "pages",
  "get",
  "create",
  "createMany",
  "upsert",
  "update",
  "updateWhere",
  "delete",
  "deleteWhere",
  "constructor",
  "client",
  "watch",
  "events",
];

/** Commands of a resource in the generated CLI an action command may not take (compiler/backends/cli-tree/core/cli.ts). */
const CLI_COMMANDS = [
  "list",
  "get",
  "create",
  "create-many",
  "update",
  "update-where",
  "delete",
  "delete-where",
  "watch",
];

/**
 * Path segments after a collection path that resc serves or keeps: a
 * collection action may not take one (`events` is the change feed's).
 */
const RESERVED_SEGMENTS = ["events"];

/**
 * Why an action called `name` would clash with something generated for
 * every resource, or undefined when it does not.
 */
export function actionNameClash(name: string, target: ActionDescriptor["target"]): string | undefined {
  if (CLIENT_MEMBERS.includes(actionMethodName(name)))
    return `the typed client's resource already has a member "${actionMethodName(name)}"`;
  if (CLI_COMMANDS.includes(actionCommandName(name)))
    return `the CLI already has a "${actionCommandName(name)}" command on every resource`;
  if (target === "collection" && RESERVED_SEGMENTS.includes(name))
    return `/<resource>/${name} is kept for the service itself`;
  return undefined;
}
