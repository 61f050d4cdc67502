import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { TEST_TENANTS } from "./vitest.config.ts";

/**
 * `npm run test:chaos`: the seeded chaos suite (test/chaos/), inside workerd like the unit tests.
 * CHAOS_SEED picks the run (printed, so a failure can be replayed), CHAOS_RUNS how many cases each
 * property tries: CI runs a fast seed, a long run is `CHAOS_RUNS=2000 npm run test:chaos`.
 */
export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          d1Databases: ["TENANT_DEV_DB", "TENANT_ACME_DB", "TENANT_GLOBEX_DB"],
          bindings: {
            TEST_MIGRATIONS: migrations,
            TENANTS: JSON.stringify(TEST_TENANTS),
            TENURE_ENV: "local",
            CHAOS_SEED: process.env.CHAOS_SEED ?? String(Date.UTC(2026, 10, 25) / 1000),
            CHAOS_RUNS: process.env.CHAOS_RUNS ?? "100",
          },
        },
      }),
    ],
    test: {
      include: ["test/chaos/**/*.chaos.ts"],
      setupFiles: ["./test/apply-migrations.ts"],
      testTimeout: 600_000,
    },
  };
});
