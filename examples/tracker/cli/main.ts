/**
 * The `tracker` binary: the only hand-written part of it (spec: Generator
 * configuration, last rule). Everything else is the command tree and typed
 * client that `resc generate spec.resource` writes under
 * `examples/tracker/generated/cli/` (`cli_dir = "cli"`, `cli_name =
 * "tracker"`).
 *
 *     npx tsx examples/tracker/cli/main.ts tasks list --status todo
 *
 * The service's address and the bearer token come from `--base-url` and
 * `--token`, else `TRACKER_BASE_URL` and `TRACKER_TOKEN`, else
 * http://127.0.0.1:3000 and no token (docs/clients.md). A main that wants
 * other defaults passes a client value: `buildCommandTree({ client: new
 * Client({ baseURL }) })`. On any failure the tree prints it on stderr and
 * exits non-zero.
 */
import { buildCommandTree } from "../generated/cli/commands/index.js";

// Not awaited at top level, so the same main compiles in an ESM and in a CommonJS project.
void buildCommandTree().execute();
