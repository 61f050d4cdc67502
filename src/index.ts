import { createApp } from "./app";
import type { Env } from "./env";
import { consumeExtractionBatch } from "./extraction/queue-consumer";
import { pruneAllTenants } from "./traces/trace-retention";

export { ProjectIndexObject } from "./project-index/project-index-object";
export { ThreadObject } from "./thread/thread-object";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consumeExtractionBatch(batch, env),
  // The hourly Cron Trigger (wrangler.toml): traces past each tenant's retention are deleted.
  scheduled: async (controller, env) => {
    await pruneAllTenants(env, controller.scheduledTime);
  },
} satisfies ExportedHandler<Env>;
