import { applyD1Migrations, env } from "cloudflare:test";

// Setup files run outside per-file storage isolation, and applyD1Migrations skips applied ones.
for (const db of [env.TENANT_DEV_DB, env.TENANT_ACME_DB, env.TENANT_GLOBEX_DB]) {
  await applyD1Migrations(db, env.TEST_MIGRATIONS);
}
