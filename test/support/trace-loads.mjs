// Preloaded with `node --import` by test/startup: records every module URL the
// process resolves into the file named by RESC_TRACE_LOADS, one per line, so a
// test can tell which packages a command loaded (bench/COMPILER.md).
import { register } from "node:module";

register(new URL("./trace-loads-hooks.mjs", import.meta.url), { data: { file: process.env.RESC_TRACE_LOADS } });
