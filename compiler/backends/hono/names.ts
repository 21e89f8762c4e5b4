/**
 * TypeScript spellings of schema names in generated code.
 */

export { pascalCase } from "../../case.js";
export { propertyKey, docComment } from "../ts-text.js";
