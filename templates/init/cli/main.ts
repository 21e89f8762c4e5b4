#!/usr/bin/env node
/**
 * The command-line client of this service: everything but this file is
 * written by `resc generate` into generated/cli. Build it with
 * `npm run build:cli`; then `npx notes notes list` (or, after `npm link`,
 * `notes notes list`). The address comes from `--base-url`, else the
 * environment variable the tree names in its help, else http://127.0.0.1:3000.
 */
import { buildCommandTree } from "../generated/cli/commands/index.js";

void buildCommandTree().execute();
