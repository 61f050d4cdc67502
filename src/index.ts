import { createApp } from "./app";
import type { Env } from "./env";
import { consumeExtractionBatch } from "./extraction/queue-consumer";

export { ThreadObject } from "./thread/thread-object";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consumeExtractionBatch(batch, env),
} satisfies ExportedHandler<Env>;
