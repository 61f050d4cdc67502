import { createHash } from "node:crypto";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Test tenants: each has its own D1 database, as provisioned tenants do. Keys are test-only. */
export const TEST_TENANTS = {
  dev: { db: "TENANT_DEV_DB", vectors: "TENANT_DEV_VECTORS", key_sha256: sha256("local-dev-key") },
  acme: { db: "TENANT_ACME_DB", vectors: "TENANT_ACME_VECTORS", key_sha256: sha256("acme-test-key") },
  /** Looser entity-resolution thresholds than the default 0.95 / 0.70 (test/entities-api.test.ts). */
  globex: {
    db: "TENANT_GLOBEX_DB",
    vectors: "TENANT_GLOBEX_VECTORS",
    key_sha256: sha256("globex-test-key"),
    entity_thresholds: { bind: 0.75, review: 0.5 },
    /** Traces kept a week instead of the default 30 days (test/trace-retention.test.ts). */
    trace_retention_days: 7,
  },
  /** A tenant whose projects are spread over two databases (src/tenancy/placement.ts). */
  initech: {
    db: "TENANT_INITECH_DB",
    more_dbs: ["TENANT_INITECH_DB_2"],
    vectors: "TENANT_INITECH_VECTORS",
    key_sha256: sha256("initech-test-key"),
  },
  /**
   * Two databases with a limit of 400 KB each (a database with the migrations applied is some 260 KB), so
   * a test can fill one past 80% of it (test/capacity.test.ts).
   */
  umbrella: {
    db: "TENANT_UMBRELLA_DB",
    more_dbs: ["TENANT_UMBRELLA_DB_2"],
    vectors: "TENANT_UMBRELLA_VECTORS",
    key_sha256: sha256("umbrella-test-key"),
    db_limit_bytes: 400_000,
  },
};

/** Every test D1 database, each with the migrations applied (test/apply-migrations.ts). */
export const TEST_DATABASES = [
  "TENANT_DEV_DB",
  "TENANT_ACME_DB",
  "TENANT_GLOBEX_DB",
  "TENANT_INITECH_DB",
  "TENANT_INITECH_DB_2",
  "TENANT_UMBRELLA_DB",
  "TENANT_UMBRELLA_DB_2",
];

/**
 * The Workers test setup both suites share: workerd through the vitest plugin, each test tenant's D1
 * database with the migrations applied, and the given extra bindings.
 */
export async function workersTestConfig(bindings: Record<string, string> = {}) {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          d1Databases: TEST_DATABASES,
          bindings: {
            TEST_MIGRATIONS: migrations,
            TENANTS: JSON.stringify(TEST_TENANTS),
            TENURE_ENV: "local",
            ...bindings,
          },
        },
      }),
    ],
    setupFiles: ["./test/apply-migrations.ts"],
  };
}

export default defineConfig(async () => {
  const { plugins, setupFiles } = await workersTestConfig();
  return {
    plugins,
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles,
      globalSetup: ["./test/global-setup/chat-completions-server.ts"],
    },
  };
});
