/** The `resc` command tree, loaded by oclif's explicit command strategy (package.json `oclif.commands`). */
import Check from "./check.js";
import Dev from "./dev.js";
import Fmt from "./fmt.js";
import Generate from "./generate.js";
import Init from "./init.js";
import Lsp from "./lsp.js";
import MigrateBaseline from "./migrate-baseline.js";
import MigrateDeploy from "./migrate-deploy.js";
import MigrateDiff from "./migrate-diff.js";
import MigrateStatus from "./migrate-status.js";
import OpenApi from "./openapi.js";
import Pull from "./pull.js";
import Serve from "./serve.js";
import Sql from "./sql.js";
import Token from "./token.js";

/** Command id → oclif command class; every `resc` subcommand, one file each (docs/architecture.md, cli/). */
export const commands = {
  check: Check,
  dev: Dev,
  fmt: Fmt,
  generate: Generate,
  init: Init,
  lsp: Lsp,
  "migrate:baseline": MigrateBaseline,
  "migrate:deploy": MigrateDeploy,
  "migrate:diff": MigrateDiff,
  "migrate:status": MigrateStatus,
  openapi: OpenApi,
  pull: Pull,
  serve: Serve,
  sql: Sql,
  token: Token,
};
