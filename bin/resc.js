#!/usr/bin/env node
// The `resc` command: oclif loads the command tree from dist/cli/commands.js (built by `npm run build`).
import { execute } from "@oclif/core/execute";

await execute({ dir: import.meta.url });
