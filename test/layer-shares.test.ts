import { describe, expect, it } from "vitest";
import { ask, fact, message, newThread } from "./helpers";

/**
 * Issue 16, item 7: budgets follow the question. Stored facts that share a word with the question are
 * packed before the conversation; when the answer is something said in the conversation, they must not
 * crowd out the turn that says it.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 4, 6, 9, minute)).toISOString();

/**
 * Forty facts logging failed deliveries: each shares "billing", "webhook" and "retry" with the first
 * question below, none answers it.
 */
const rota = Array.from({ length: 40 }, (_, i) =>
  fact(
    `billing_webhook_retry_${i + 1}`,
    `Billing webhook retry ${i + 1} for merchant ${100 + i} failed with a timeout at the gateway`,
  ),
);

const recommendation =
  "For the billing webhook I recommended an exponential retry backoff: wait 2 seconds after the first " +
  "failure, double the wait after each further failure, add up to 20 percent random jitter so the " +
  "retries of many merchants do not arrive together, cap a single wait at 5 minutes, and give up after " +
  "12 attempts, at which point the event goes to the dead-letter queue and the on-call engineer is " +
  "paged. Idempotency keys on every delivery make a retried event safe to apply twice, and the webhook " +
  "handler must answer within 3 seconds or the sender counts the attempt as failed.";

async function thread() {
  const t = await newThread();
  await t.events([
    ...rota,
    message("How should we retry failed billing webhook deliveries?", { id: "q1", ts: at(1) }),
    message(recommendation, { id: "a1", role: "assistant", ts: at(2) }),
    ...Array.from({ length: 12 }, (_, i) =>
      message(`Standup note ${i + 1}: nothing blocking today.`, { id: `n${i}`, ts: at(10 + i) }),
    ),
  ]);
  return t;
}

describe("budgets follow the question", () => {
  it("keeps the turn that answers when many facts share a word with the question", async () => {
    const t = await thread();
    const { context, trace } = await ask(t, "What retry backoff did you recommend for the billing webhook?", {
      budget_tokens: 500,
    });
    expect(trace.budget).toEqual({ evidence: "conversation", state_share: 0.3 });
    expect(context).toContain("cap a single wait at 5 minutes");
    // Facts still take their bounded share.
    expect(context).toMatch(/Billing webhook retry \d+ for merchant/);
  });

  it("leaves the facts their share when the question is about stored state", async () => {
    const t = await thread();
    const { context, trace } = await ask(
      t,
      "Which merchant had billing webhook retry 7 fail at the gateway?",
      {
        budget_tokens: 500,
      },
    );
    expect(trace.budget).toEqual({ evidence: "state", state_share: 1 });
    expect(context).toContain("merchant 106");
  });
});
