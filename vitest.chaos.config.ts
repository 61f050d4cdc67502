import { defineConfig } from "vitest/config";
import { workersTestConfig } from "./vitest.config.ts";

/**
 * `npm run test:chaos`: the seeded chaos suite (test/chaos/), inside workerd like the unit tests.
 * CHAOS_SEED picks the run (printed, so a failure can be replayed), CHAOS_RUNS how many cases each
 * property tries: CI runs the fixed seed with 100, a long run is `CHAOS_RUNS=2000 npm run test:chaos`.
 */
export default defineConfig(async () => {
  const { plugins, setupFiles } = await workersTestConfig({
    CHAOS_SEED: process.env.CHAOS_SEED ?? String(Date.UTC(2026, 10, 25) / 1000),
    CHAOS_RUNS: process.env.CHAOS_RUNS ?? "100",
  });
  return {
    plugins,
    test: { include: ["test/chaos/**/*.chaos.ts"], setupFiles, testTimeout: 600_000 },
  };
});
