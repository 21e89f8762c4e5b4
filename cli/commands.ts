/** The `resc` command tree, loaded by oclif's explicit command strategy (package.json `oclif.commands`). */
import Check from "./check.js";
import Dev from "./dev.js";
import Fmt from "./fmt.js";
import Generate from "./generate.js";
import Lsp from "./lsp.js";
import OpenApi from "./openapi.js";
import Sql from "./sql.js";

export const commands = { check: Check, dev: Dev, fmt: Fmt, generate: Generate, lsp: Lsp, openapi: OpenApi, sql: Sql };
