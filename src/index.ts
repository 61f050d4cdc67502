import { createApp } from "./app";
import type { Env } from "./env";
import { consumeExtractionBatch } from "./extraction/queue-consumer";

export { ProjectIndexObject } from "./project-index/project-index-object";
export { ThreadObject } from "./thread/thread-object";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consumeExtractionBatch(batch, env),
} satisfies ExportedHandler<Env>;
