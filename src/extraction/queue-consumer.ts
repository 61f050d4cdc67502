import { DEFAULT_BACKFILL_MESSAGES } from "../api/schemas/entities";
import type { Env } from "../env";
import { lookupTenant } from "../tenancy/registry";
import { threadStub } from "../thread/thread-stub";
import { EXTRACTION_DLQ, ExtractionJob, sendBackfill } from "./jobs";

/** How long a job waits before it looks again at a thread whose last delivery extracted a slice. */
const RESEND_DELAY_S = 1;

/**
 * Extraction jobs arrive at least once and in no order. Each names a thread; the thread's object
 * extracts the next slice past its watermark, so duplicates and stale jobs are no-ops. Jobs for one
 * thread in a batch collapse into one call, and a call that extracted a slice sends the job again.
 */
export async function consumeExtractionBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (batch.queue === EXTRACTION_DLQ) return recordDeadJobs(batch, env);
  const byThread = new Map<string, { tenant: string; thread: string; messages: Message<unknown>[] }>();
  const backfills = new Map<string, { tenant: string; thread: string; messages: Message<unknown>[] }>();
  for (const message of batch.messages) {
    const job = ExtractionJob.safeParse(message.body);
    if (!job.success || !lookupTenant(env, job.data.tenant)) {
      // A malformed job can never succeed; retrying it would only delay the dead-letter queue.
      console.error("dropping malformed extraction job", message.id);
      message.ack();
      continue;
    }
    const groups = job.data.kind === "mention_backfill" ? backfills : byThread;
    const key = `${job.data.tenant}/${job.data.thread}`;
    const group = groups.get(key) ?? { tenant: job.data.tenant, thread: job.data.thread, messages: [] };
    group.messages.push(message);
    groups.set(key, group);
  }
  await Promise.all([
    ...[...backfills.values()].map((group) => continueBackfill(group, env)),
    ...[...byThread.values()].map(async (group) => {
      try {
        const outcome = await threadStub(env, group.tenant, group.thread).extract(
          group.tenant,
          group.thread,
          {},
        );
        if (!outcome.ok && outcome.status !== 404) throw new Error(outcome.detail);
        for (const message of group.messages) message.ack();
        // A slice was read, so more may be pending: come back until a delivery finds nothing. The
        // object drains the rest in the background meanwhile; this keeps the drain going if it is
        // evicted before it finishes.
        if (outcome.ok && outcome.value) {
          await env.EXTRACTION_QUEUE.send(
            { tenant: group.tenant, thread: group.thread, through: outcome.value.through },
            { delaySeconds: RESEND_DELAY_S },
          );
        }
      } catch (error) {
        console.error("extraction failed; will retry", group.tenant, group.thread, error);
        for (const message of group.messages) message.retry();
      }
    }),
  ]);
}

/**
 * One more call of a thread's mention back-fill (a default `limit` of messages), sent again while the
 * thread answers that more is left; a registry failure is retried by the queue, an unknown thread dropped.
 */
async function continueBackfill(
  group: { tenant: string; thread: string; messages: Message<unknown>[] },
  env: Env,
): Promise<void> {
  try {
    const outcome = await threadStub(env, group.tenant, group.thread).backfillMentions(
      group.tenant,
      group.thread,
      { limit: DEFAULT_BACKFILL_MESSAGES, restart: false },
    );
    if (!outcome.ok && outcome.status !== 404) throw new Error(outcome.detail);
    for (const message of group.messages) message.ack();
    if (outcome.ok && !outcome.value.done)
      await sendBackfill(env.EXTRACTION_QUEUE, group.tenant, group.thread);
  } catch (error) {
    console.error("mention back-fill failed; will retry", group.tenant, group.thread, error);
    for (const message of group.messages) message.retry();
  }
}

/** Jobs that exhausted their retries are recorded on their thread, where the extraction log shows them. */
async function recordDeadJobs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const job = ExtractionJob.safeParse(message.body);
    if (job.success && lookupTenant(env, job.data.tenant)) {
      await threadStub(env, job.data.tenant, job.data.thread).recordDeadJob(
        job.data.tenant,
        job.data.thread,
        {
          message_id: message.id,
          attempts: message.attempts,
        },
      );
    }
    message.ack();
  }
}
