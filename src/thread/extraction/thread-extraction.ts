import type { WatermarkView } from "../../api/schemas";
import type { FactVersion } from "../../domain/fact-version";
import { MessageMentions } from "../../entities/message-mentions";
import { factEventFrom } from "../../extraction/fact-events";
import { DEFAULT_LIMITS, type ExtractionLimits, runExtraction } from "../../extraction/run-extraction";
import type { ExtractResult } from "../../extraction/run-result";
import { EXTRACTION_QUERY_TERMS } from "../../facts/fact-candidates";
import { valueText } from "../../facts/prepare-fact";
import { renderItemLine } from "../../items/render";
import type { CarriedScope, ExtractionMessage, Extractor } from "../../items/types";
import type { Embedder } from "../../ports/embedder";
import type { MentionExtractor } from "../../ports/mention-extractor";
import type { VectorIndex } from "../../ports/vector-index";
import { projectDatabase } from "../../tenancy/placement";
import type { Tenant } from "../../tenancy/registry";
import { loadTokenCounter } from "../../tokens/count-tokens";
import type { ThreadFacts } from "../facts/thread-facts";
import type { ClockHost, ExclusiveHost, TransactionHost } from "../host";
import type { LayerStore } from "../layers/layer-store";
import type { ThreadRecord } from "../thread-record";
import type { Transcript } from "../transcript/transcript";
import { type ExtractionStore, NO_MENTIONS } from "./extraction-store";
import { type BackfillOptions, MentionBackfill, type MentionBackfillReport } from "./mention-backfill";

/** The adapters one extraction run uses. */
export interface ExtractionAdapters {
  extractor: Extractor;
  embedder: Embedder;
  /** Who reads the messages' entity mentions; the rules when absent. */
  mentions?: MentionExtractor;
}

/**
 * Extraction as a capability of the thread (seed 002): it reads the messages that arrived after the
 * watermark from the transcript, in slices ordered by (ts, id), runs the extractor over them, writes the facts it finds through the facts capability and
 * commits items, claims, scopes, run log and watermark in one transaction. It is driven by the write
 * path (src/thread/upkeep.ts) and by queue jobs, never by a read.
 */
export class ThreadExtraction {
  /** Resolves the entities the messages name into the project's registry (src/entities). */
  private readonly mentions = new MessageMentions();

  private readonly backfill: MentionBackfill;

  constructor(
    private readonly host: TransactionHost & ExclusiveHost & ClockHost,
    readonly store: ExtractionStore,
    private readonly transcript: Transcript,
    private readonly layers: LayerStore,
    private readonly facts: ThreadFacts,
    private readonly vectors: VectorIndex,
  ) {
    this.backfill = new MentionBackfill(host, store, transcript, () => this.extractedSeq());
  }

  /** Reads the mentions of messages extracted before they were read, and binds weak ones named since. */
  backfillMentions(
    record: ThreadRecord,
    tenant: Tenant,
    options: BackfillOptions,
    extractor?: MentionExtractor,
  ): Promise<{ report: MentionBackfillReport; failed: boolean }> {
    return this.backfill.run(record, tenant, this.mentions, options, extractor);
  }

  /** Messages that arrived after the watermark: every message is extracted once, whatever its `ts`. */
  pending(): number {
    return this.transcript.countArrivedAfter(this.extractedSeq());
  }

  /** The arrival number extraction has read through. */
  extractedSeq(): number {
    const seq = this.store.extractedSeq();
    if (seq !== undefined) return seq;
    const mark = this.store.watermark();
    return mark ? this.transcript.arrivedThrough(mark) : 0;
  }

  watermark(): WatermarkView {
    return {
      last_message: this.transcript.last(),
      extracted_through: this.store.watermark(),
      pending_messages: this.pending(),
    };
  }

  /**
   * One run over the next slice of pending messages, or null when none are pending. Facts are written to
   * D1 first with ids derived from their source message, so a run that dies before its commit and is
   * redone writes the same facts again as duplicates; then items, scopes, claims, run log, watermark and
   * open scope commit in one transaction. Exclusive, so two runs never read the same watermark; the
   * facts it wrote are announced to other threads after the exclusive section.
   */
  async run(
    record: ThreadRecord,
    tenant: Tenant,
    adapters: ExtractionAdapters,
    options: Partial<ExtractionLimits> = {},
  ): Promise<ExtractResult | null> {
    const { result, written } = await this.host.exclusive(() => this.step(record, tenant, adapters, options));
    await this.facts.announce(tenant, record.thread, written);
    return result;
  }

  private async step(
    record: ThreadRecord,
    tenant: Tenant,
    { extractor, embedder, mentions: mentionExtractor }: ExtractionAdapters,
    options: Partial<ExtractionLimits>,
  ) {
    const limits = { ...DEFAULT_LIMITS, ...options };
    const fromSeq = this.extractedSeq();
    const messages = this.transcript.arrivedAfter<
      ExtractionMessage & { seq: number } & Record<string, SqlStorageValue>
    >(fromSeq, limits.maxMessages);
    if (messages.length === 0) return { result: null };
    const throughSeq = Math.max(...messages.map((m) => m.seq));
    const screened = this.transcript.screensOf(messages.map((m) => m.id));
    for (const m of messages) if (screened.has(m.id)) m.screened = true;
    const now = this.host.now();
    const slice = messages.map((m) => m.content).join("\n");
    const { candidates } = await this.facts.read(tenant, record, slice, EXTRACTION_QUERY_TERMS);
    const visible = candidates.rows.filter((f) => f.contradictionStatus !== "disputed");
    const current = visible.filter((f) => f.txEnd === null && f.isValid);
    const deadValues = [
      ...visible.filter((f) => f.txEnd !== null || !f.isValid).map((f) => valueText(JSON.parse(f.valueJson))),
      ...this.layers.replacedValues(record.environment),
    ];
    // Client intent outranks extraction: what the client replaced stays replaced (run-extraction.ts).
    const byId = new Map(visible.map((f) => [f.id, f]));
    const clientReplaced = visible.flatMap((f) => {
      const by = f.supersededBy ? byId.get(f.supersededBy) : undefined;
      return by && by.sourceType !== "conversation"
        ? [{ value: valueText(JSON.parse(f.valueJson)), from: by.validFrom }]
        : [];
    });
    const openScope = this.store.openScope();
    const run = await runExtraction(
      {
        runId: `${messages[0]?.id}..${messages.at(-1)?.id}`,
        now,
        messages,
        existing: this.store.allItems(),
        existingFacts: current.map((f) => ({
          key: f.key,
          value: valueText(JSON.parse(f.valueJson)),
          validFrom: f.validFrom,
          recorded: f.sourceType !== "conversation",
          ...(f.threadId !== record.thread ? { elsewhere: true } : {}),
        })),
        deadValues,
        clientReplaced,
        slotAliases: this.store.slotAliases(),
        openScope,
        openScopeFacts: valuesIn(openScope, current),
      },
      { extractor, embedder },
      limits,
    );
    if (!run) return { result: null };
    const countTokens = await loadTokenCounter();
    const { written } = await this.facts.write(
      record,
      tenant,
      run.facts.map((fact) => factEventFrom(fact, record.thread)),
      now,
      countTokens,
    );
    // The entities the slice's messages name, with a reference to each message (screened probes aside):
    // like the facts, written before the commit, and a no-op when a redone run writes them again.
    const read = messages.filter((m) => !m.screened);
    const mentioned = await this.mentions.record(
      await projectDatabase(tenant, record.project_id),
      { projectId: record.project_id, threadId: record.thread, identity: record.identity },
      read,
      tenant.entity_thresholds,
      mentionExtractor,
    );
    // The mention watermark follows the run's when every message before the slice had its mentions read
    // (a thread extracted before they were, or a failed reading, waits for a backfill: mention-backfill.ts).
    const mentions = {
      recorded: mentioned.ok ? { ...mentioned, read: read.map((m) => m.id) } : NO_MENTIONS,
      throughSeq: mentioned.ok && this.store.mentionedSeq() >= fromSeq ? throughSeq : undefined,
    };
    const records = run.items.map((item) => {
      const line = renderItemLine(item);
      return { item, line, tokens: countTokens(line) };
    });
    this.host.transaction(() => {
      this.store.commitRun(
        records,
        run.result,
        run.through,
        throughSeq,
        run.openScope,
        run.slotAliases,
        run.messageClaims,
        run.retiredValues,
        mentions,
      );
      this.transcript.rescope(run.messageScopes);
      this.transcript.adopt(run.adoptedScopes);
    });
    // No other I/O intervenes, so these writes coalesce with the commit above.
    await this.vectors.upsert(
      run.items
        .filter((item) => run.vectors.get(item.uid)?.length)
        .map((item) => ({
          id: item.uid,
          // Vectors from different embedders live in different spaces and never share a namespace.
          namespace: itemNamespace(record.thread, embedder),
          values: run.vectors.get(item.uid) ?? [],
          metadata: { type_tag: item.type_tag, status: item.status },
        })),
    );
    return { result: run.result, written };
  }
}

/** The values facts stated inside the open scope, oldest first, for a turn that adopts it. */
function valuesIn(scope: CarriedScope | null, current: FactVersion[]): { key: string; value: string }[] {
  if (!scope?.scope_id) return [];
  return current
    .filter((f) => f.scopeId === scope.scope_id)
    .sort((a, b) => a.validFrom.localeCompare(b.validFrom))
    .map((f) => ({ key: f.key, value: valueText(JSON.parse(f.valueJson)) }));
}

/** Where extraction indexes a thread's state items, one namespace per embedder. */
export const itemNamespace = (thread: string, embedder: Embedder) => `${thread}/${embedder.name}`;
