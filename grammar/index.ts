/**
 * The `.resource` language front end: text → IR + diagnostics
 * (docs/language.md). The only module other code should import from
 * `grammar/`.
 */
export { parse } from "./parse.js";
export { formatDiagnostic, formatDiagnostics, summarize, type FormatOptions } from "../language/diagnostics.js";
export { BUILTIN_TYPES } from "../language/types.js";
export { COLUMN_ATTRIBUTES } from "./to-ir/attributes.js";
export { BLOCK_ATTRIBUTES } from "./to-ir/block-attributes.js";
export { RESOURCE_SETTINGS, OP_NAMES } from "./to-ir/resource.js";
export { ACTION_ATTRIBUTES } from "./to-ir/action.js";
export { AUTH_SETTINGS, CLAIM_ATTRIBUTES, JWT_ALGORITHMS, JWT_SETTINGS } from "./to-ir/auth.js";
export { ACCESS_SETTINGS } from "./to-ir/access.js";
