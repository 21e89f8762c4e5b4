import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    alias: {
      // Generated code imports `resc/runtime`; tests run it from source.
      "resc/runtime": fileURLToPath(new URL("./runtime/index.ts", import.meta.url)),
      "resc/ops": fileURLToPath(new URL("./runtime/ops/index.ts", import.meta.url)),
    },
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // First the generated cores' text is embedded from their source modules (docs/decisions/1328-generated-cores.md);
    // then this run's databases are named and any a failed setup left behind are dropped.
    globalSetup: ["scripts/embed-cores.mjs", "test/support/global-db.ts"],
  },
});
