import type { D1Migration } from "@cloudflare/vitest-plugin";
import type { Env as TenureEnv } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends TenureEnv {
      TEST_MIGRATIONS: D1Migration[];
      TENANT_DEV_DB: D1Database;
      TENANT_ACME_DB: D1Database;
      TENANT_GLOBEX_DB: D1Database;
      TENANT_INITECH_DB: D1Database;
      TENANT_INITECH_DB_2: D1Database;
      TENANT_UMBRELLA_DB: D1Database;
      TENANT_UMBRELLA_DB_2: D1Database;
      /** The chaos suite's seed and cases per property (vitest.chaos.config.ts). */
      CHAOS_SEED?: string;
      CHAOS_RUNS?: string;
    }
  }
}

declare module "vitest" {
  /** Values the global setup files provide to tests. */
  export interface ProvidedContext {
    chatCompletionsUrl: string;
  }
}
