import { applyD1Migrations, env } from "cloudflare:test";

// Setup files run outside per-file storage isolation, and applyD1Migrations skips applied ones.
const databases = [
  env.TENANT_DEV_DB,
  env.TENANT_ACME_DB,
  env.TENANT_GLOBEX_DB,
  env.TENANT_INITECH_DB,
  env.TENANT_INITECH_DB_2,
  env.TENANT_UMBRELLA_DB,
  env.TENANT_UMBRELLA_DB_2,
];
for (const db of databases) {
  await applyD1Migrations(db, env.TEST_MIGRATIONS);
}
