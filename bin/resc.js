#!/usr/bin/env node
// The `resc` command: oclif and the command tree, bundled by `npm run build` (scripts/bundle.mjs, decision 1325).
import { run } from "../dist/bundle/main.js";

await run(import.meta.url);
