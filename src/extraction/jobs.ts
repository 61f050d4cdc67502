import { z } from "zod";

/** The body of an extraction job. It names a thread only: the object decides what is new. */
export const ExtractionJob = z.object({
  tenant: z.string().min(1),
  thread: z.string().min(1),
  /** Newest message at enqueue time; informational, a stale job simply finds nothing to do. */
  through: z.object({ ts: z.string(), id: z.string() }).nullable(),
  /**
   * What to do: extract the next slice (the default), or go on with the thread's mention back-fill
   * (src/thread/extraction/mention-backfill.ts), which an operator started with `background: true`.
   */
  kind: z.enum(["extract", "mention_backfill"]).optional(),
});

export type ExtractionJobBody = z.infer<typeof ExtractionJob>;

/** Queues the next call of a thread's mention back-fill, a second from now. */
export async function sendBackfill(
  queue: Queue<ExtractionJobBody>,
  tenant: string,
  thread: string,
): Promise<void> {
  await queue.send({ tenant, thread, through: null, kind: "mention_backfill" }, { delaySeconds: 1 });
}

export const EXTRACTION_QUEUE = "tenure-extraction";
export const EXTRACTION_DLQ = "tenure-extraction-dlq";
