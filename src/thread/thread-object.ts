import { DurableObject } from "cloudflare:workers";
import { SqliteVectorIndex } from "../adapters/sqlite-vector-index/sqlite-vector-index";
import type {
  ContextInput,
  ContextResponseOutput,
  CreateThreadInput,
  EventInput,
  IngestOutput,
} from "../api/schemas";
import type { Env } from "../env";
import type { ExtractionLimits } from "../extraction/run-extraction";
import type { ExtractResult } from "../extraction/run-result";
import { embedderFor, extractorFor, mentionExtractorFor } from "../extraction/select-adapters";
import { projectIndexStub } from "../project-index/project-index-stub";
import { lookupTenant, type Tenant } from "../tenancy/registry";
import { StoreFull } from "../tenancy/storage-full";
import { Compilation, type ExtractionStatus } from "./compilation";
import { ExtractionStore } from "./extraction/extraction-store";
import type { MentionBackfillReport } from "./extraction/mention-backfill";
import { ThreadExtraction } from "./extraction/thread-extraction";
import { ProjectFactIndex } from "./facts/project-fact-index";
import { type FactsWrittenTo, ThreadFacts } from "./facts/thread-facts";
import type { BackgroundHost, ClockHost, ExclusiveHost, SqlHost, TransactionHost } from "./host";
import { ingestUnlessContended } from "./ingest";
import { LayerStore } from "./layers/layer-store";
import { ThreadRetrieval } from "./retrieval/thread-retrieval";
import { ThreadMeta } from "./thread-meta";
import { type ThreadRecord, ThreadRecords } from "./thread-record";
import {
  CONTENDED,
  type ExpandedItem,
  type ExtractionLog,
  type MessageView,
  notFound,
  type Outcome,
  storageFullOutcome,
  type ThreadRpc,
  type ThreadStateValue,
  unknownTenant,
} from "./thread-rpc";
import { threadStub } from "./thread-stub";
import { ThreadViews } from "./thread-views";
import { Transcript } from "./transcript/transcript";
import { type PassControl, Upkeep } from "./upkeep";
import { upkeepPass } from "./upkeep-pass";

type Host = SqlHost & TransactionHost & ExclusiveHost & BackgroundHost & ClockHost;

/**
 * One object per (tenant, thread), a thin shell: it builds the host its capabilities run on, wires them
 * (each owns its tables; see README "Architecture") and routes each RPC to them after checking that
 * the call names this object's own tenant and thread.
 */
export class ThreadObject extends DurableObject<Env> implements ThreadRpc {
  private readonly records: ThreadRecords;
  private readonly transcript: Transcript;
  private readonly layers: LayerStore;
  private readonly facts: ThreadFacts;
  private readonly extraction: ThreadExtraction;
  private readonly retrieval: ThreadRetrieval;
  private readonly compilation: Compilation;
  private readonly views: ThreadViews;
  private readonly upkeep: Upkeep;
  private readonly host: Host;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const host: Host = {
      sql: ctx.storage.sql,
      transaction: (run) => ctx.storage.transactionSync(run),
      exclusive: (run) => ctx.blockConcurrencyWhile(run),
      background: (work) => ctx.waitUntil(work),
      now: () => new Date().toISOString(),
    };
    this.host = host;
    const meta = new ThreadMeta(host);
    const vectors = new SqliteVectorIndex(host.sql);
    this.records = new ThreadRecords(meta, host);
    this.transcript = new Transcript(host, meta, vectors);
    this.layers = new LayerStore(host);
    const projectIndex = new ProjectFactIndex(
      host,
      (tenant, projectId) => projectIndexStub(env, tenant, projectId),
      () => embedderFor(env),
    );
    this.facts = new ThreadFacts(
      (tenant, thread, ...change) => threadStub(env, tenant, thread).factsChanged(tenant, thread, ...change),
      projectIndex,
      (tenant) => mentionExtractorFor(tenant, env),
    );
    const store = new ExtractionStore(host, meta, (ids) => this.transcript.timesOf(ids));
    this.extraction = new ThreadExtraction(host, store, this.transcript, this.layers, this.facts, vectors);
    this.retrieval = new ThreadRetrieval(host, this.transcript, vectors);
    const sources = { transcript: this.transcript, layers: this.layers, facts: this.facts };
    this.compilation = new Compilation(host, { ...sources, extraction: store, retrieval: this.retrieval });
    this.views = new ThreadViews(host, { ...sources, extraction: this.extraction });
    this.upkeep = new Upkeep(host, (control, options) => this.upkeepPass(control, options));
  }

  /** The record when the call names this object's own tenant and thread, with the tenant's entry. */
  private resolve(tenant: string, thread: string): Outcome<{ record: ThreadRecord; tenant: Tenant }> {
    const record = this.records.owned(tenant, thread);
    if (!record) return notFound(thread);
    const entry = lookupTenant(this.env, tenant);
    return entry ? { ok: true, value: { record, tenant: entry } } : unknownTenant(tenant);
  }

  async create(tenant: string, thread: string, input: CreateThreadInput) {
    return this.records.create(tenant, thread, input);
  }

  /** Runs a request with upkeep held off: no background slice starts while it is in flight. */
  private async held<T>(request: () => Promise<T>, kind: "write" | "read" = "write"): Promise<T> {
    this.upkeep.hold(kind);
    try {
      return await request();
    } finally {
      this.upkeep.release(kind);
    }
  }

  async ingest(tenant: string, thread: string, events: EventInput[]): Promise<Outcome<IngestOutput>> {
    return this.held(async () => {
      const { outcome, written } = await this.ctx.blockConcurrencyWhile(async () => {
        const owner = this.resolve(tenant, thread);
        if (!owner.ok) return { outcome: owner };
        const { record, tenant: entry } = owner.value;
        const parts = { transcript: this.transcript, layers: this.layers, facts: this.facts };
        // A full store is answered, not thrown: a throw here would reset the object for a refusal that
        // left its storage as it was. Facts it wrote before the refusal are announced as any write's are.
        const ingested = await ingestUnlessContended(this.host, parts, record, entry, events).catch(
          (error) => {
            if (error instanceof StoreFull) return error as StoreFull<FactsWrittenTo>;
            throw error;
          },
        );
        if (ingested instanceof StoreFull) {
          const stored = ingested.stored;
          return {
            outcome: storageFullOutcome(ingested.store, stored !== undefined),
            written: stored && { ...stored, entry },
          };
        }
        if (!ingested) return { outcome: CONTENDED };
        if (ingested.messages) await this.enqueueExtraction(tenant, thread);
        const value = { ...ingested.value, watermark: this.extraction.watermark() };
        return {
          outcome: { ok: true, value } as const,
          written: ingested.written && { ...ingested.written, entry },
        };
      });
      // Outside the block: announcing waits on other objects, which may be announcing to this one.
      if (written) await this.facts.announce(written.entry, thread, written);
      if (outcome.ok) this.upkeep.afterWrite();
      return outcome;
    });
  }

  /** A lost job costs only latency (the next write or compile schedules upkeep), so a failed send is logged. */
  private async enqueueExtraction(tenant: string, thread: string): Promise<void> {
    try {
      await this.env.EXTRACTION_QUEUE?.send({ tenant, thread, through: this.extraction.store.watermark() });
    } catch (error) {
      console.error("could not enqueue extraction", tenant, thread, error);
    }
  }

  /**
   * One extraction run over the next pending slice (queue jobs call this; seed 002), and how many
   * messages are still pending after it, for the job to come back while there are.
   */
  async extract(
    tenant: string,
    thread: string,
    options: Partial<ExtractionLimits>,
  ): Promise<Outcome<ExtractResult | null>> {
    const owner = this.resolve(tenant, thread);
    if (!owner.ok) return owner;
    const { record, tenant: entry } = owner.value;
    const value = await this.held(() => this.extraction.run(record, entry, this.adapters(entry), options));
    // Whatever is left drains in the background (an interactive thread) or by the job coming back.
    if (this.extraction.pending() > 0) this.upkeep.afterWrite();
    return { ok: true, value };
  }

  private adapters(entry: Tenant) {
    return {
      extractor: extractorFor(entry, this.env),
      embedder: embedderFor(this.env),
      mentions: mentionExtractorFor(entry, this.env),
    };
  }

  private async upkeepPass(control: PassControl, options: { indexFacts: boolean }) {
    const record = this.records.current();
    const entry = record && lookupTenant(this.env, record.tenant);
    if (!record || !entry) return { extractionFailed: false };
    const parts = {
      extraction: this.extraction,
      retrieval: this.retrieval,
      facts: this.facts,
      warm: () => this.compilation.warm(),
    };
    return upkeepPass(parts, record, entry, this.adapters(entry), control, options);
  }

  async compile(
    tenant: string,
    thread: string,
    request: ContextInput,
  ): Promise<Outcome<ContextResponseOutput>> {
    const owner = this.resolve(tenant, thread);
    if (!owner.ok) return owner;
    const { record, tenant: entry } = owner.value;
    // Read-your-writes for the caller's last turns; a backlog is never waited on (src/thread/upkeep.ts).
    const waitedMs = await this.upkeep.beforeRead(this.extraction.pending(), this.facts.behind());
    return this.held(async () => {
      const left = this.extraction.pending();
      const status = left === 0 ? "current" : this.upkeep.extractionFailed ? "failed" : "partial";
      const extraction: ExtractionStatus = { status, pending_messages: left };
      const value = await this.compilation.compile(
        record,
        entry,
        embedderFor(this.env),
        request,
        extraction,
        waitedMs,
      );
      // The full-text lists the message search wanted and did not hold, read between requests.
      this.upkeep.afterRead(() => this.transcript.episodes.prepareRanking());
      return { ok: true, value } as const;
    }, "read");
  }

  async state(tenant: string, thread: string): Promise<Outcome<ThreadStateValue>> {
    const owner = this.resolve(tenant, thread);
    if (!owner.ok) return owner;
    return {
      ok: true,
      value: await this.views.state(owner.value.record, owner.value.tenant, embedderFor(this.env)),
    };
  }

  async extractions(tenant: string, thread: string): Promise<Outcome<ExtractionLog>> {
    if (!this.records.owned(tenant, thread)) return notFound(thread);
    return { ok: true, value: this.views.extractions() };
  }

  async expand(tenant: string, thread: string, uid: string): Promise<Outcome<ExpandedItem>> {
    if (!this.records.owned(tenant, thread)) return notFound(thread);
    const expanded = this.views.expand(uid);
    if (!expanded)
      return { ok: false, status: 404, title: "Item not found", detail: `No state item '${uid}'.` };
    return { ok: true, value: expanded };
  }

  async message(tenant: string, thread: string, id: string, part?: number): Promise<Outcome<MessageView>> {
    const owner = this.resolve(tenant, thread);
    if (!owner.ok) return owner;
    const found = this.views.message(owner.value.record, id, part);
    if (!found) return { ok: false, status: 404, title: "Message not found", detail: `No message '${id}'.` };
    if (!found.partFound)
      return {
        ok: false,
        status: 404,
        title: "Part not found",
        detail: `Message '${id}' has ${found.view.parts} part(s); part ${part} does not exist.`,
      };
    return { ok: true, value: found.view };
  }

  /** The operator's mention backfill (src/thread/extraction/mention-backfill.ts), held like a write. */
  async backfillMentions(
    tenant: string,
    thread: string,
    options: { limit: number; restart: boolean },
  ): Promise<Outcome<MentionBackfillReport>> {
    const owner = this.resolve(tenant, thread);
    if (!owner.ok) return owner;
    const { record, tenant: entry } = owner.value;
    const { report, failed } = await this.held(() =>
      this.extraction.backfillMentions(record, entry, options, mentionExtractorFor(entry, this.env)),
    );
    if (!failed) return { ok: true, value: report };
    return {
      ok: false,
      status: 503,
      title: "Entity registry unavailable",
      detail: `The project's registry could not be read or written; what was read is committed (mentions read through message ${report.mentioned_through}, ${report.references_added} reference(s) added). Call again.`,
    };
  }

  async recordDeadJob(tenant: string, thread: string, job: { message_id: string; attempts: number }) {
    if (this.records.owned(tenant, thread)) this.extraction.store.recordDeadJob(job.message_id, job.attempts);
  }

  /** A write through another thread of the project reached `revision` (src/thread/facts/thread-facts.ts). */
  async factsChanged(tenant: string, thread: string, projectId: string, token: string, revision: number) {
    if (!this.records.owned(tenant, thread)) return false;
    const held = this.facts.changed(projectId, token, revision);
    // The new facts reach an interactive thread's fact index on its write path; an idle one's next compile.
    if (held) this.upkeep.afterWrite();
    return held;
  }
}
