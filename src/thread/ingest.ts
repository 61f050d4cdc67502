import { monotonicFactory } from "ulid";
import type { EventInput, FactEventInput, IngestOutput, MessageEventInput } from "../api/schemas";
import { StaleFactPlan } from "../facts/fact-repository";
import { toInstant } from "../facts/time";
import type { Tenant } from "../tenancy/registry";
import { fullStore, StoreFull } from "../tenancy/storage-full";
import { loadTokenCounter } from "../tokens/count-tokens";
import type { FactsWrittenTo, ThreadFacts } from "./facts/thread-facts";
import type { ClockHost, TransactionHost } from "./host";
import { type LayerChange, type LayerStore, type LayerWrite, prepareLayerWrite } from "./layers/layer-store";
import type { ThreadRecord } from "./thread-record";
import { prepareMessages, type Transcript } from "./transcript/transcript";

type Stamped<T> = T & { id: string; ts: string };

/**
 * `ingestEvents`, or `null` when the batch's facts lost the race for their slots every time they were
 * re-planned: nothing of the batch was stored then (the caller answers 409). It throws StoreFull when
 * the facts' database or the thread's storage had no room; StoreFull says what the batch stored.
 */
export async function ingestUnlessContended(
  ...args: Parameters<typeof ingestEvents>
): Promise<Ingested | null> {
  try {
    return await ingestEvents(...args);
  } catch (error) {
    if (error instanceof StaleFactPlan) return null;
    throw error;
  }
}

/** What an ingest wrote, for the object to announce and to schedule upkeep for. */
export interface Ingested {
  value: Omit<IngestOutput, "watermark">;
  written?: FactsWrittenTo;
  messages: number;
}

/**
 * Stamps events (a server id and the time received where the client gave none), ordered by (ts, id);
 * a repeated event in the same call counts once. Events the client sent without a time keep the order
 * they came in: each is stamped a millisecond after the one before it, the last at the time received,
 * since the transcript orders by (ts, id) and client ids ("q-zeta", "a-alpha") say nothing of order.
 */
export function stampEvents(events: readonly EventInput[], receivedAt: string) {
  const nextId = monotonicFactory();
  const received = Date.parse(receivedAt);
  const unstamped = events.filter((e) => !e.ts).length;
  let k = 0;
  const stampOf = (e: EventInput) => {
    if (e.ts) return toInstant(e.ts);
    const behind = unstamped - 1 - k++;
    return behind === 0 ? receivedAt : new Date(received - behind).toISOString();
  };
  const stamped = events
    .map((e) => ({ ...e, id: e.id ?? nextId(), ts: stampOf(e) }))
    .sort((a, b) => a.ts.localeCompare(b.ts) || a.id.localeCompare(b.id));
  const seen = new Set<string>();
  let repeated = 0;
  const fresh: typeof stamped = [];
  for (const event of stamped) {
    const identity = `${event.type}:${event.id}`;
    if (seen.has(identity)) repeated++;
    else fresh.push(event);
    seen.add(identity);
  }
  return {
    repeated,
    messages: fresh.filter((e): e is Stamped<MessageEventInput> => e.type === "message"),
    facts: fresh.filter((e): e is Stamped<FactEventInput> => e.type === "fact"),
  };
}

/**
 * The write path of one ingest call: persistent facts to D1 (through the facts capability), then
 * messages and working-set/environment writes in one transaction of the thread's own storage. Call it
 * in an exclusive section, so a chain of supersessions in one thread never races with itself.
 */
export async function ingestEvents(
  host: TransactionHost & ClockHost,
  parts: { transcript: Transcript; layers: LayerStore; facts: ThreadFacts },
  record: ThreadRecord,
  tenant: Tenant,
  events: readonly EventInput[],
): Promise<Ingested> {
  const { transcript, layers, facts } = parts;
  const receivedAt = host.now();
  const { repeated, messages, facts: factEvents } = stampEvents(events, receivedAt);
  const countTokens = await loadTokenCounter();
  const persistent = factEvents.filter((f) => (f.layer ?? "persistent") === "persistent");
  const layered = factEvents.filter(
    (f): f is LayerWrite => f.layer === "working" || f.layer === "environment",
  );
  // Everything that can fail is computed before the first write, so a batch that fails stores nothing.
  const preparedMessages = prepareMessages(messages, countTokens);
  const preparedLayers = layered.map((f) => prepareLayerWrite(f, countTokens));

  const { outcomes, written } = await facts
    .write(record, tenant, persistent, receivedAt, countTokens)
    .catch((error: unknown) => {
      const full = fullStore(error);
      throw full ? new StoreFull(full, error) : error;
    });
  let duplicates = repeated + outcomes.filter((o) => o.outcome === "duplicate").length;
  let accepted = outcomes.filter((o) => o.outcome !== "duplicate" && o.outcome !== "upserted").length;

  try {
    host.transaction(() => {
      const appended = transcript.append(preparedMessages, record.identity, countTokens);
      accepted += appended.accepted;
      duplicates += appended.duplicates;
      const changes: LayerChange[] = [];
      for (const prepared of preparedLayers) {
        const change = layers.append(prepared, receivedAt);
        if (change === "duplicate") duplicates++;
        else {
          accepted++;
          changes.push(change);
        }
        outcomes.push({
          id: prepared.write.id,
          key: prepared.write.key,
          // A write older than the key's current value is kept as history, never current: said so, as for facts.
          outcome:
            change === "duplicate" ? "duplicate" : change.entry.replacedBy === null ? "upserted" : "history",
          supersedes: null,
          reason: null,
        });
      }
      // Last, so an in-memory copy never holds what a rolled-back transaction did not write.
      layers.appended(changes);
      transcript.appended();
    });
  } catch (error) {
    transcript.rolledBack();
    // The facts are in D1 by now: the refusal carries what was written, to be announced as any write is.
    const full = fullStore(error);
    throw full ? new StoreFull<FactsWrittenTo>(full, error, written) : error;
  }
  return {
    value: { accepted, duplicates, facts: outcomes },
    messages: messages.length,
    ...(written ? { written } : {}),
  };
}
