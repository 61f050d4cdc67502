import type { Tenant } from "../tenancy/registry";
import type { ExtractionAdapters, ThreadExtraction } from "./extraction/thread-extraction";
import type { ThreadFacts } from "./facts/thread-facts";
import type { ThreadRetrieval } from "./retrieval/thread-retrieval";
import type { ThreadRecord } from "./thread-record";
import { type PassControl, WAIT_FOR_PENDING } from "./upkeep";

export interface UpkeepParts {
  extraction: ThreadExtraction;
  retrieval: ThreadRetrieval;
  facts: ThreadFacts;
  /** Runs the compile passes over the state extraction added, for their caches (Compilation.warm). */
  warm: () => void;
}

/**
 * A step of the mention back-fill on every pass (src/thread/extraction/mention-backfill.ts), once
 * extraction is drained: weak mentions of a name an entity took since (by a fact of this thread or of
 * another, whose write announces itself here) become references, and a thread extracted before mentions
 * were read reads them a page at a time. Bounded: at most a page of messages and one registry read.
 */
const UPKEEP_BACKFILL = { limit: 100, restart: false, maxNames: 1000 };

/**
 * The write path's background pass (scheduled by src/thread/upkeep.ts): extract every pending slice,
 * each one exclusive and each after the requests in progress (`idle`), warm a read thread's compile
 * caches with what a backlog's extraction added, then bring the message index,
 * and for a thread that is read the fact index, up to date. A compile waiting for the pass reads once
 * the first batch of message vectors and the fact index are written (`caughtUp`); the rest of the
 * message vectors follow a batch at a time, unless another round is asked for, which then catches up
 * before going on with them. A failure is logged and leaves the rest to the next pass.
 */
export async function upkeepPass(
  parts: UpkeepParts,
  record: ThreadRecord,
  tenant: Tenant,
  adapters: ExtractionAdapters,
  control: PassControl,
  options: { indexFacts: boolean },
): Promise<{ extractionFailed: boolean }> {
  const { extraction, retrieval, facts } = parts;
  const { idle } = control;
  let extractionFailed = false;
  // A backlog: more than the caller's last turns, which a compile waits for (and then makes their few
  // objects itself, where a warm-up first would only add its own time to the wait).
  const backlog = extraction.pending() > WAIT_FOR_PENDING;
  try {
    while (extraction.pending() > 0) {
      await idle();
      if (!(await extraction.run(record, tenant, adapters))) break;
    }
  } catch (error) {
    extractionFailed = true;
    console.error("background extraction failed", record.tenant, record.thread, error);
  }
  if (!extractionFailed) {
    try {
      await idle();
      await extraction.backfillMentions(record, tenant, UPKEEP_BACKFILL, adapters.mentions);
    } catch (error) {
      console.error("mention back-fill failed", record.tenant, record.thread, error);
    }
  }
  // A thread that is read gets what a backlog's extraction added ready for its next compile, here on
  // the write path rather than in that compile.
  if (backlog && options.indexFacts) {
    try {
      await idle();
      parts.warm();
    } catch (error) {
      console.error("warming the compile caches failed", record.tenant, record.thread, error);
    }
  }
  try {
    // One batch of message vectors (a caller's last turns) and the fact index before a waiting compile
    // reads; the rest of a backlog after it, a batch at a time between requests.
    await idle();
    let moreMessages = await retrieval.indexMessages(record.thread, adapters.embedder);
    // The project's facts are read (from D1 when they changed) only for a thread that is read itself.
    if (options.indexFacts) {
      const { rows, revision, truncated } = (await facts.read(tenant, record, "")).candidates;
      do await idle();
      while (await retrieval.indexFacts(record.thread, rows, adapters.embedder));
      // A project the newest versions hold whole is now in the thread's own index, all of it.
      if (!truncated.includes("recent")) retrieval.factsIndexedWhole(adapters.embedder, revision);
    }
    control.caughtUp();
    while (moreMessages && !control.anotherRound()) {
      await idle();
      moreMessages = await retrieval.indexMessages(record.thread, adapters.embedder);
    }
  } catch (error) {
    console.error("index upkeep failed", record.tenant, record.thread, error);
  }
  return { extractionFailed };
}
