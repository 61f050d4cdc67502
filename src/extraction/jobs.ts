import { z } from "zod";

/** The body of an extraction job. It names a thread only: the object decides what is new. */
export const ExtractionJob = z.object({
  tenant: z.string().min(1),
  thread: z.string().min(1),
  /** Newest message at enqueue time; informational, a stale job simply finds nothing to do. */
  through: z.object({ ts: z.string(), id: z.string() }).nullable(),
});

export type ExtractionJobBody = z.infer<typeof ExtractionJob>;

export const EXTRACTION_QUEUE = "tenure-extraction";
export const EXTRACTION_DLQ = "tenure-extraction-dlq";
