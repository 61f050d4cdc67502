import { DurableObject } from "cloudflare:workers";
import { monotonicFactory, ulid } from "ulid";
import { SqliteVectorIndex } from "../adapters/sqlite-vector-index/sqlite-vector-index";
import type {
  ContextInput,
  ContextOutput,
  ContextResponseOutput,
  CreateThreadInput,
  EventInput,
  FactEventInput,
  IngestOutput,
  MessageEventInput,
  StoredFactView,
  WatermarkView,
} from "../api/schemas";
import { compileContext, MESSAGE_TAIL } from "../compiler/compile";
import { CompileCache } from "../compiler/compile-cache";
import type { EpisodeRecord, MessageRecord } from "../compiler/types";
import { detailForms } from "../context/detail-forms";
import type { Env } from "../env";
import { factEventFrom } from "../extraction/fact-events";
import { DEFAULT_LIMITS, type ExtractionLimits, runExtraction } from "../extraction/run-extraction";
import { embedderFor, extractorFor } from "../extraction/select-adapters";
import { DEFAULT_AUTHORITY_LADDER } from "../facts/authority";
import { FactCache } from "../facts/fact-cache";
import { FactRepository, type FactsWritten, type FactWatcher } from "../facts/fact-repository";
import type { FactRow } from "../facts/fact-schema";
import { toFactView } from "../facts/fact-view";
import { planFactWrites } from "../facts/plan-writes";
import { prepareFact, valueText } from "../facts/prepare-fact";
import { toInstant } from "../facts/time";
import type { Embedder } from "../ports/embedder";
import type { VectorIndex } from "../ports/vector-index";
import { FUSION_DEPTH, rankEpisodes } from "../retrieval/episodes";
import { readTimeQuery } from "../retrieval/time-query";
import { renderItemLine, renderStateSection } from "../state/render";
import type { ExtractionMessage, StateItem } from "../state/types";
import { sha256Hex } from "../tenancy/keys";
import { lookupTenant, type Tenant } from "../tenancy/registry";
import { loadTokenCounter } from "../tokens/count-tokens";
import { withTraceDetail } from "../traces/trace-detail";
import { traceRowFrom } from "../traces/trace-record";
import { TraceRepository } from "../traces/trace-repository";
import { deepFreeze } from "./deep-freeze";
import { EpisodeIndex, writtenTailRecord } from "./episode-index";
import { ExtractionStore, type ExtractResult } from "./extraction-store";
import { FactVectors } from "./fact-vectors";
import { LayerStore } from "./layer-store";
import { type LayerName, THREAD_SCHEMA, type ThreadRecord } from "./thread-schema";
import { threadStub } from "./thread-stub";
import { TurnScreens } from "./turn-screens";

/** How long a compile may spend extracting pending messages before it answers anyway. */
const INLINE_EXTRACTION_MS = 2_000;
/** Retrieved messages handed to the compiler at most; the budget keeps fewer. */
const MAX_EPISODES = 200;
/** A longer silence between two messages starts a new session: neighbour rescue does not cross it. */
const SESSION_GAP_MS = 60 * 60 * 1000;

export interface ExtractionStatus {
  status: "current" | "partial" | "failed";
  pending_messages: number;
}

export interface ExtractionLog {
  runs: ExtractResult[];
  dead_jobs: { message_id: string; attempts: number; recorded_at: string }[];
  watermark: WatermarkView;
}

export interface ExpandedItem {
  item: StateItem;
  messages: { id: string; ts: string; role: string; speaker: string | null; content: string }[];
}

export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; status: 404 | 409; title: string; detail: string };

export interface ThreadStateValue {
  thread: ThreadView;
  facts: StoredFactView[];
  working_set: { key: string; value: unknown; ts: string; expires_at: string | null }[];
  environment_facts: { key: string; value: unknown; ts: string }[];
  message_count: number;
  watermark: WatermarkView;
  items: StateItem[];
  rendered_state: string;
}

type ThreadView = Omit<ThreadRecord, "created_at">;

/** The object's RPC surface, as the Worker calls it. */
export type ThreadRpc = Pick<
  ThreadObject,
  | "create"
  | "ingest"
  | "compile"
  | "state"
  | "extract"
  | "recordDeadJob"
  | "extractions"
  | "expand"
  | "factsChanged"
>;

type Stamped<T> = T & { id: string; ts: string };

const unknownTenant = (tenant: string) =>
  ({ ok: false, status: 404, title: "Unknown tenant", detail: tenant }) as const;

/** Who reads facts through this thread's copy: the project, the user whose own facts join, the holder. */
const readerOf = (record: ThreadRecord) => ({
  projectId: record.project_id,
  userId: record.identity.user_id,
  thread: record.thread,
});

type FactsWrittenTo = FactsWritten & { projectId: string };

const notFound = (thread: string) =>
  ({
    ok: false,
    status: 404,
    title: "Thread not found",
    detail: `Create thread '${thread}' with PUT first.`,
  }) as const;

/**
 * One object per (tenant, thread). It owns the thread's identity, environment, messages, working set,
 * environment-layer facts and extraction watermark, and is the single writer for facts written through
 * the thread, so a chain of supersessions within a thread never races with itself.
 */
export class ThreadObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private readonly extraction: ExtractionStore;
  /** Item, message and fact embeddings, in this thread's own storage (the offline default index). */
  private readonly vectors: VectorIndex;
  private readonly episodes: EpisodeIndex;
  private readonly factVectors: FactVectors;
  private readonly layers: LayerStore;
  /** Screening verdicts on user turns, decided when each turn is written. */
  private readonly screens: TurnScreens;
  /** The project's facts between compiles, checked against D1's revision on every read. */
  private readonly factCache = new FactCache();
  private heldRecord: ThreadRecord | undefined;
  /** What compiles of this thread can reuse while the object stays warm (src/compiler/compile-cache.ts). */
  private readonly compileCache = new CompileCache();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    for (const statement of THREAD_SCHEMA) this.sql.exec(statement);
    this.extraction = new ExtractionStore(this.sql);
    this.vectors = new SqliteVectorIndex(this.sql);
    this.episodes = new EpisodeIndex(this.sql, this.vectors);
    this.factVectors = new FactVectors(this.sql, this.vectors);
    this.layers = new LayerStore(this.sql);
    this.screens = new TurnScreens(this.sql);
  }

  /**
   * The thread's record, written once by `create` and never changed, so it is read from storage only
   * until it is found, and then held (frozen: every request shares it).
   */
  private record(): ThreadRecord | undefined {
    if (this.heldRecord) return this.heldRecord;
    const row = this.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = 'thread'").toArray()[0];
    if (!row) return undefined;
    this.heldRecord = deepFreeze(JSON.parse(row.v) as ThreadRecord);
    return this.heldRecord;
  }

  /** The object's name is derived from the tenant, and it checks the tenant again on every call. */
  private owned(tenant: string, thread: string): ThreadRecord | undefined {
    const record = this.record();
    return record && record.tenant === tenant && record.thread === thread ? record : undefined;
  }

  async create(
    tenant: string,
    thread: string,
    input: CreateThreadInput,
  ): Promise<{ created: boolean; thread: ThreadView }> {
    const existing = this.record();
    if (existing) return { created: false, thread: viewOf(existing) };
    const record: ThreadRecord = {
      tenant,
      thread,
      project_id: input.project_id,
      identity: input.identity,
      environment: input.environment ?? {},
      created_at: new Date().toISOString(),
    };
    this.sql.exec("INSERT INTO meta (k, v) VALUES ('thread', ?)", JSON.stringify(record));
    return { created: true, thread: viewOf(record) };
  }

  async ingest(tenant: string, thread: string, events: EventInput[]): Promise<Outcome<IngestOutput>> {
    const { outcome, written } = await this.ctx.blockConcurrencyWhile(async () => {
      const record = this.owned(tenant, thread);
      if (!record) return { outcome: notFound(thread) };
      const receivedAt = new Date().toISOString();
      // Monotonic ids keep server-assigned events in arrival order when their timestamps tie.
      const nextId = monotonicFactory();
      const stamped = events
        .map((e) => ({ ...e, id: e.id ?? nextId(), ts: e.ts ? toInstant(e.ts) : receivedAt }))
        .sort((a, b) => a.ts.localeCompare(b.ts) || a.id.localeCompare(b.id));

      const countTokens = await loadTokenCounter();
      const seen = new Set<string>();
      let duplicates = 0;
      const fresh: typeof stamped = [];
      for (const event of stamped) {
        const identity = `${event.type}:${event.id}`;
        if (seen.has(identity)) duplicates++;
        else fresh.push(event);
        seen.add(identity);
      }
      const messages = fresh.filter((e): e is Stamped<MessageEventInput> => e.type === "message");
      const factEvents = fresh.filter((e): e is Stamped<FactEventInput> => e.type === "fact");
      const persistent = factEvents.filter((f) => (f.layer ?? "persistent") === "persistent");
      const layered = factEvents.filter((f) => f.layer === "working" || f.layer === "environment");

      const tenantEntry = lookupTenant(this.env, tenant);
      if (!tenantEntry) return { outcome: unknownTenant(tenant) };
      const { outcomes: factOutcomes, written: factsWritten } = await this.writeFacts(
        record,
        tenantEntry,
        persistent,
        receivedAt,
        countTokens,
      );
      duplicates += factOutcomes.filter((o) => o.outcome === "duplicate").length;

      let accepted = 0;
      const written: { id: string; ts: string; content: string; prefix: string }[] = [];
      this.ctx.storage.transactionSync(() => {
        const insertedMessages: { id: string; ts: string }[] = [];
        for (const m of messages) {
          const prefix = `[${m.ts}] ${m.speaker ? `${m.speaker} (${m.role})` : m.role}: `;
          const line = `${prefix}${m.content}`;
          const tokens = countTokens(line);
          const cursor = this.sql.exec(
            "INSERT INTO messages (id, ts, role, speaker, content, line, tokens) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            m.id,
            m.ts,
            m.role,
            m.speaker ?? null,
            m.content,
            line,
            tokens,
          );
          if (cursor.rowsWritten > 0) {
            accepted++;
            const forms = detailForms(m.content, countTokens, prefix);
            this.sql.exec(
              "INSERT OR REPLACE INTO message_forms (id, summary, summary_tokens, micro, micro_tokens) VALUES (?, ?, ?, ?, ?)",
              m.id,
              forms.summary,
              forms.summaryTokens,
              forms.micro,
              forms.microTokens,
            );
            const speaker = m.speaker ?? null;
            this.episodes.add({
              id: m.id,
              speaker,
              content: m.content,
              record: writtenTailRecord(
                { id: m.id, ts: m.ts, role: m.role, speaker, content: m.content, line, tokens },
                forms,
              ),
            });
            insertedMessages.push({ id: m.id, ts: m.ts });
            if (m.role === "user") written.push({ id: m.id, ts: m.ts, content: m.content, prefix });
          } else duplicates++;
        }
        // After the batch is in, so each turn is weighed against every turn before it.
        for (const turn of written) this.screens.screen(turn, record.identity, countTokens);
        for (const f of layered) {
          const inserted = this.sql.exec(
            "INSERT INTO event_ledger (id, kind, received_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
            f.id,
            `fact:${f.layer}`,
            receivedAt,
          );
          if (inserted.rowsWritten === 0) {
            duplicates++;
            factOutcomes.push({ id: f.id, key: f.key, outcome: "duplicate", supersedes: null, reason: null });
            continue;
          }
          this.layers.upsert(f.layer as LayerName, f, countTokens);
          accepted++;
          factOutcomes.push({ id: f.id, key: f.key, outcome: "upserted", supersedes: null, reason: null });
        }
        // Last, so an in-memory copy never holds what a rolled-back transaction did not write.
        this.episodes.added(insertedMessages);
      });
      accepted += factOutcomes.filter((o) => o.outcome !== "duplicate" && o.outcome !== "upserted").length;
      if (messages.length) await this.enqueueExtraction(tenant, thread);
      const value = { accepted, duplicates, watermark: this.watermark(), facts: factOutcomes };
      return { outcome: { ok: true, value } as const, written: factsWritten };
    });
    // Outside the block: announcing waits on other objects, which may be announcing to this one.
    await this.announceFacts(tenant, thread, written);
    return outcome;
  }

  /** Persistent facts go to the tenant's D1 in one batch, planned against what is stored. */
  private async writeFacts(
    record: ThreadRecord,
    tenantEntry: Tenant,
    events: Stamped<FactEventInput>[],
    receivedAt: string,
    countTokens: (text: string) => number,
  ): Promise<{ outcomes: IngestOutput["facts"]; written?: FactsWrittenTo }> {
    if (events.length === 0) return { outcomes: [] };
    const repository = new FactRepository(tenantEntry.database);
    const writer = {
      projectId: record.project_id,
      threadId: record.thread,
      identity: record.identity,
      ladder: tenantEntry.authority_ladder ?? DEFAULT_AUTHORITY_LADDER,
      receivedAt,
      countTokens,
    };
    const rows = events.map((f) => prepareFact(f, writer));
    const references = (r: FactRow) => [
      ...(r.supersedes ? [r.supersedes] : []),
      ...(JSON.parse(r.dependsOnJson) as string[]),
    ];
    const existing = await repository.loadForPlanning(
      record.project_id,
      rows.flatMap((r) => [r.id, ...references(r)]),
      rows.flatMap((r) => [r.key, ...references(r)]),
    );
    const plan = planFactWrites(existing, rows, receivedAt);
    const catchUp = this.factCache.catchUpFor(record.project_id, record.identity.user_id);
    const written = await repository.apply(record.project_id, plan, catchUp);
    if (written?.changed && catchUp) {
      this.factCache.absorb(record.project_id, catchUp, written.revision, written.changed);
    }
    return {
      outcomes: plan.outcomes,
      ...(written ? { written: { ...written, projectId: record.project_id } } : {}),
    };
  }

  /**
   * Tells every other thread holding the project's facts in memory (fact-cache.ts) that a write reached
   * `revision`, before the write is acknowledged, so their next compile reads it. A holder that is
   * gone is unregistered; a call that fails is logged, and the holder's periodic recheck covers it.
   */
  private async announceFacts(tenant: string, thread: string, written?: FactsWrittenTo): Promise<void> {
    if (!written) return;
    const { projectId, revision, watchers } = written;
    this.factCache.announce(projectId, this.factCache.token, revision);
    const gone: FactWatcher[] = [];
    await Promise.all(
      watchers
        .filter((w) => w.thread !== thread)
        .map(async (w) => {
          try {
            const held = await threadStub(this.env, tenant, w.thread).factsChanged(
              tenant,
              w.thread,
              projectId,
              w.token,
              revision,
            );
            if (!held) gone.push(w);
          } catch (error) {
            console.error("could not announce a fact write", tenant, w.thread, revision, error);
          }
        }),
    );
    const tenantEntry = lookupTenant(this.env, tenant);
    if (gone.length && tenantEntry) {
      await new FactRepository(tenantEntry.database)
        .forget(projectId, gone)
        .catch((error) => console.error("could not unregister fact holders", tenant, error));
    }
  }

  /** A write through another thread of the project reached `revision` (see announceFacts). */
  async factsChanged(
    tenant: string,
    thread: string,
    projectId: string,
    token: string,
    revision: number,
  ): Promise<boolean> {
    if (!this.owned(tenant, thread)) return false;
    return this.factCache.announce(projectId, token, revision);
  }

  /**
   * A lost job costs only latency: compile catches up inline, so a failed send is logged and ingestion
   * still succeeds.
   */
  private async enqueueExtraction(tenant: string, thread: string): Promise<void> {
    try {
      await this.env.EXTRACTION_QUEUE?.send({ tenant, thread, through: this.extraction.watermark() });
    } catch (error) {
      console.error("could not enqueue extraction", tenant, thread, error);
    }
  }

  /**
   * Extracts structured state from the messages past the watermark (seed 002). Facts are written to D1
   * first with ids derived from their source message, so a run that dies before its commit and is
   * redone writes the same facts again as duplicates; then items, run log, watermark and open scope
   * commit in one transaction.
   */
  async extract(
    tenant: string,
    thread: string,
    options: Partial<ExtractionLimits>,
  ): Promise<Outcome<ExtractResult | null>> {
    const { outcome, written } = await this.ctx.blockConcurrencyWhile(async () => {
      const record = this.owned(tenant, thread);
      if (!record) return { outcome: notFound(thread) };
      const tenantEntry = lookupTenant(this.env, tenant);
      if (!tenantEntry) return { outcome: unknownTenant(tenant) };
      const limits = { ...DEFAULT_LIMITS, ...options };
      const embedder = embedderFor(this.env);
      const messages = this.extraction.pendingMessages<ExtractionMessage & Record<string, SqlStorageValue>>(
        limits.maxMessages,
      );
      if (messages.length === 0) return { outcome: { ok: true, value: null } as const };
      const screened = this.screens.of(messages.map((m) => m.id));
      for (const m of messages) if (screened.has(m.id)) m.screened = true;
      const now = new Date().toISOString();
      const repository = new FactRepository(tenantEntry.database);
      const visible = (await this.factCache.forCompile(repository, readerOf(record))).rows.filter(
        (f) => f.contradictionStatus !== "disputed",
      );
      const current = visible.filter((f) => f.txEnd === null && f.isValid);
      const deadValues = [
        ...visible
          .filter((f) => f.txEnd !== null || !f.isValid)
          .map((f) => valueText(JSON.parse(f.valueJson))),
        ...this.replacedLayerValues(record),
      ];
      const run = await runExtraction(
        {
          runId: `${messages[0]?.id}..${messages.at(-1)?.id}`,
          now,
          messages,
          existing: this.extraction.allItems(),
          existingFacts: current.map((f) => ({
            key: f.key,
            value: valueText(JSON.parse(f.valueJson)),
            validFrom: f.validFrom,
            recorded: f.sourceType !== "conversation",
          })),
          deadValues,
          slotAliases: this.extraction.slotAliases(),
          openScope: this.extraction.openScope(),
        },
        { extractor: extractorFor(tenantEntry, this.env), embedder },
        limits,
      );
      if (!run) return { outcome: { ok: true, value: null } as const };
      const countTokens = await loadTokenCounter();
      const { written } = await this.writeFacts(
        record,
        tenantEntry,
        run.facts.map(factEventFrom),
        now,
        countTokens,
      );
      const records = run.items.map((item) => {
        const line = renderItemLine(item);
        return { item, line, tokens: countTokens(line) };
      });
      this.ctx.storage.transactionSync(() => {
        this.extraction.commitRun(
          records,
          run.result,
          run.through,
          run.openScope,
          run.slotAliases,
          run.messageScopes,
          run.messageClaims,
          run.retiredValues,
        );
        this.episodes.rescoped(run.messageScopes);
      });
      // No other I/O intervenes, so these writes coalesce with the commit above.
      await this.vectors.upsert(
        run.items
          .filter((item) => run.vectors.get(item.uid)?.length)
          .map((item) => ({
            id: item.uid,
            // Vectors from different embedders live in different spaces and never share a namespace.
            namespace: `${thread}/${embedder.name}`,
            values: run.vectors.get(item.uid) ?? [],
            metadata: { type_tag: item.type_tag, status: item.status },
          })),
      );
      return { outcome: { ok: true, value: run.result } as const, written };
    });
    await this.announceFacts(tenant, thread, written);
    return outcome;
  }

  /** Working-set and environment values a later write replaced, and initial environment values overridden. */
  private replacedLayerValues(record: ThreadRecord): string[] {
    const versions = [...this.layers.entries("working", true), ...this.layers.entries("environment", true)];
    const replaced = versions
      .filter((v) => v.replacedBy !== null)
      .map((v) => valueText(JSON.parse(v.valueJson)));
    const overridden = this.layers
      .entries("environment")
      .map((e) => record.environment[e.key])
      .filter((value) => value !== undefined && value !== null)
      .map((value) => valueText(value));
    return [...replaced, ...overridden];
  }

  /** Read-your-writes for compile: extract what is pending within a time bound, and say if it could not. */
  private async catchUp(tenant: string, thread: string, budgetMs: number): Promise<ExtractionStatus> {
    const deadline = Date.now() + budgetMs;
    try {
      while (this.extraction.pendingCount() > 0) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) return { status: "partial", pending_messages: this.extraction.pendingCount() };
        await this.extract(tenant, thread, { timeoutMs: remaining });
      }
      return { status: "current", pending_messages: 0 };
    } catch (error) {
      console.error("inline extraction failed", tenant, thread, error);
      return { status: "failed", pending_messages: this.extraction.pendingCount() };
    }
  }

  async recordDeadJob(
    tenant: string,
    thread: string,
    job: { message_id: string; attempts: number },
  ): Promise<void> {
    if (!this.owned(tenant, thread)) return;
    this.extraction.recordDeadJob(job.message_id, job.attempts);
  }

  async extractions(tenant: string, thread: string): Promise<Outcome<ExtractionLog>> {
    if (!this.owned(tenant, thread)) return notFound(thread);
    return {
      ok: true,
      value: {
        runs: this.extraction.runs(100),
        dead_jobs: this.extraction.deadJobs(),
        watermark: this.watermark(),
      },
    };
  }

  async expand(tenant: string, thread: string, uid: string): Promise<Outcome<ExpandedItem>> {
    if (!this.owned(tenant, thread)) return notFound(thread);
    const item = this.extraction.item(uid);
    if (!item) return { ok: false, status: 404, title: "Item not found", detail: `No state item '${uid}'.` };
    const messages = item.refs.length
      ? this.sql
          .exec<{ id: string; ts: string; role: string; speaker: string | null; content: string }>(
            `SELECT id, ts, role, speaker, content FROM messages WHERE id IN (${item.refs.map(() => "?").join(", ")}) ORDER BY ts, id`,
            ...item.refs,
          )
          .toArray()
      : [];
    return { ok: true, value: { item, messages } };
  }

  private watermark(): WatermarkView {
    const last = this.sql
      .exec<{ ts: string; id: string }>("SELECT ts, id FROM messages ORDER BY ts DESC, id DESC LIMIT 1")
      .toArray()[0];
    return {
      last_message: last ? { ts: last.ts, id: last.id } : null,
      extracted_through: this.extraction.watermark(),
      pending_messages: this.extraction.pendingCount(),
    };
  }

  async compile(
    tenant: string,
    thread: string,
    request: ContextInput,
  ): Promise<Outcome<ContextResponseOutput>> {
    const record = this.owned(tenant, thread);
    if (!record) return notFound(thread);
    const tenantEntry = lookupTenant(this.env, tenant);
    if (!tenantEntry) return unknownTenant(tenant);
    const extraction = await this.catchUp(tenant, thread, INLINE_EXTRACTION_MS);
    // Catch-up extraction is reported in trace.extraction; compile_ms starts after it. The laps below
    // split it for trace.timings; what a deployed Worker's clock shows of them is said in schemas.ts.
    const started = performance.now();
    // When the facts changed, their D1 round trip is in flight while the thread's own (synchronous)
    // reads run, so its wait overlaps them instead of adding to them. It is sent first: the token
    // counter's first load (once per isolate, a large rank table) overlaps it too.
    const factsPending = this.factCache.forCompile(
      new FactRepository(tenantEntry.database),
      readerOf(record),
    );
    const countTokens = await loadTokenCounter();
    const messages = this.episodes.tail(MESSAGE_TAIL);
    const now = request.now ? toInstant(request.now) : new Date().toISOString();
    const embedder = embedderFor(this.env);
    const queryVector = await this.queryVector(thread, embedder, request.query);
    const retrieved = await this.retrieveEpisodes(thread, request.query, now, embedder, queryVector);
    const screens = this.screens.of([...messages, ...retrieved].map((m) => m.id));
    const screened = <T extends MessageRecord>(m: T): T => {
      const screen = screens.get(m.id);
      return screen ? { ...m, screen } : m;
    };
    const episodes = retrieved.map(screened);
    for (const [i, m] of messages.entries()) messages[i] = screened(m);
    const items = this.extraction.itemRecords();
    const statedClaims = this.extraction.statedClaims([
      ...messages.map((m) => m.id),
      ...episodes.map((m) => m.id),
      ...items.flatMap((record) => record.item.refs),
    ]);
    // Copies of the held arrays (the entries themselves are frozen and shared between compiles).
    const working = [...this.layers.entries("working", true)];
    const environmentFacts = [...this.layers.entries("environment", true)];
    const threadRead = performance.now();
    const { rows: facts, read: factsRead } = await factsPending;
    const factsArrived = performance.now();
    const similar = await this.nearestState(thread, facts, embedder, queryVector);
    const passesStarted = performance.now();
    const output = compileContext({
      query: request.query,
      budgetTokens: request.budget_tokens,
      factsShare: request.facts_share,
      now,
      tenantId: tenant,
      projectId: record.project_id,
      threadId: thread,
      taskId: request.task_id,
      taskType: request.task_type,
      requestRoles: request.roles,
      identity: record.identity,
      environment: record.environment,
      ladder: tenantEntry.authority_ladder ?? DEFAULT_AUTHORITY_LADDER,
      facts,
      working,
      environmentFacts,
      items,
      statedClaims,
      messages,
      episodes,
      similar,
      countTokens,
      format: request.format,
      system: request.system,
      tools: request.tools,
      cache: this.compileCache,
    });
    const passesDone = performance.now();
    const conflicts = new Map<string, string[]>();
    for (const q of output.trace.quarantined) {
      const ids = [...(conflicts.get(q.slot) ?? []), q.object_id, ...q.conflicts_with];
      conflicts.set(q.slot, [...new Set(ids)]);
    }
    if (conflicts.size) {
      this.extraction.raiseConfirmations(
        [...conflicts].map(([slot, objectIds]) => ({ slot, objectIds })),
        new Date().toISOString(),
        countTokens,
      );
    }
    const timings = {
      thread_reads_ms: milliseconds(threadRead - started + (passesStarted - factsArrived)),
      facts_ms: milliseconds(factsArrived - threadRead),
      passes_ms: milliseconds(passesDone - passesStarted),
      facts_read: factsRead,
    };
    const value = {
      ...output,
      trace: { ...output.trace, compile_ms: milliseconds(performance.now() - started), timings, extraction },
      trace_id: ulid(),
    };
    await this.persistTrace(tenantEntry, record, request.query, value);
    return { ok: true, value: withTraceDetail(value, request.trace_detail) };
  }

  /**
   * Awaited before the compile answers, so a client can read a trace by the id it was just given. It is
   * a single insert into the tenant's D1, and waitUntil would not help here: it does not extend a Durable
   * Object's life. A failure is logged and never fails the compile: the context is already correct.
   */
  private async persistTrace(
    tenantEntry: Tenant,
    record: ThreadRecord,
    query: string,
    output: ContextOutput,
  ): Promise<void> {
    try {
      const row = traceRowFrom({
        tenant: tenantEntry.name,
        traceId: output.trace_id,
        projectId: record.project_id,
        thread: record.thread,
        createdAt: new Date().toISOString(),
        querySha256: await sha256Hex(query),
        queryChars: query.length,
        budgetTokens: output.budget_tokens,
        tokens: output.tokens,
        compileMs: output.trace.compile_ms ?? 0,
        trace: output.trace,
      });
      await new TraceRepository(tenantEntry.database).save(row);
    } catch (error) {
      console.error(
        "could not persist compile trace",
        tenantEntry.name,
        record.thread,
        output.trace_id,
        error,
      );
    }
  }

  /**
   * Earlier messages relevant to the query: FTS5 and vector candidates, their session neighbours, ranked
   * by src/retrieval. A failing embedder costs the vector half of the ranking, never the compile.
   */
  private async retrieveEpisodes(
    thread: string,
    query: string,
    now: string,
    embedder: Embedder,
    queryVector: number[] | null,
  ): Promise<EpisodeRecord[]> {
    const lexical = this.episodes.lexical(query, FUSION_DEPTH);
    let vector: { id: string; score: number }[] = [];
    try {
      if (queryVector) {
        vector = await this.episodes.semantic(
          queryVector,
          embedder,
          `${thread}/messages/${embedder.name}`,
          FUSION_DEPTH,
        );
      }
    } catch (error) {
      console.error("episode vector search failed", thread, error);
    }
    const hits = this.episodes.records([...lexical, ...vector.map((v) => v.id)]);
    const adjacency = this.episodes.adjacency(hits.values(), SESSION_GAP_MS);
    const neighbourIds = [...adjacency.values()].flatMap((a) =>
      [a.previous, a.next].filter((id): id is string => id !== undefined && !hits.has(id)),
    );
    const records = new Map([...hits, ...this.episodes.records(neighbourIds)]);
    // The day each message was said is rendered by the compiler, once per group of lines.
    const { period } = readTimeQuery(query, now);
    return rankEpisodes({ lexical, vector, messages: records, adjacency, now, period })
      .slice(0, MAX_EPISODES)
      .flatMap((ranked) => {
        const record = records.get(ranked.id);
        return record ? [{ ...record, score: ranked.score }] : [];
      });
  }

  /** The query's embedding, once per compile for every vector search; null when the embedder fails. */
  private async queryVector(thread: string, embedder: Embedder, query: string): Promise<number[] | null> {
    try {
      const [vector] = await embedder.embed([query]);
      return vector ?? null;
    } catch (error) {
      console.error("query embedding failed", thread, error);
      return null;
    }
  }

  /**
   * The vector half of fact and state-item retrieval: the current facts and the items nearest the query
   * in the thread's vector index, with their cosine, by object id; pass 5 fuses them with BM25. Items are
   * indexed as extraction writes them; facts as this thread first compiles with them. A failing index or
   * embedder leaves BM25 alone, never fails the compile.
   */
  private async nearestState(
    thread: string,
    facts: readonly FactRow[],
    embedder: Embedder,
    queryVector: number[] | null,
  ): Promise<Map<string, number>> {
    const similar = new Map<string, number>();
    if (!queryVector) return similar;
    try {
      const nearFacts = await this.factVectors.nearest(
        facts,
        embedder,
        `${thread}/facts/${embedder.name}`,
        queryVector,
        FUSION_DEPTH,
      );
      // Items are written to the index by extraction (see extract), under the thread's own namespace.
      const nearItems = queryVector.some((v) => v !== 0)
        ? await this.vectors.query(queryVector, {
            topK: FUSION_DEPTH,
            namespace: `${thread}/${embedder.name}`,
          })
        : [];
      for (const match of [...nearFacts, ...nearItems]) similar.set(match.id, match.score);
    } catch (error) {
      console.error("fact and item vector search failed", thread, error);
    }
    return similar;
  }

  async state(tenant: string, thread: string): Promise<Outcome<ThreadStateValue>> {
    const record = this.owned(tenant, thread);
    if (!record) return notFound(thread);
    const tenantEntry = lookupTenant(this.env, tenant);
    if (!tenantEntry) return unknownTenant(tenant);
    const current = await new FactRepository(tenantEntry.database).currentInProject(record.project_id);
    const visible = current.filter((f) => f.userId === null || f.userId === record.identity.user_id);
    const activeItems = this.extraction.activeItems();
    return {
      ok: true,
      value: {
        thread: viewOf(record),
        facts: visible.map(toFactView),
        working_set: this.layers.entries("working").map((e) => ({
          key: e.key,
          value: JSON.parse(e.valueJson),
          ts: e.ts,
          expires_at: e.expiresAt,
        })),
        environment_facts: this.layers.entries("environment").map((e) => ({
          key: e.key,
          value: JSON.parse(e.valueJson),
          ts: e.ts,
        })),
        message_count: this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages").one().n,
        watermark: this.watermark(),
        items: activeItems,
        rendered_state: renderStateSection(activeItems, new Date().toISOString()),
      },
    };
  }
}

const milliseconds = (elapsed: number) => Math.round(elapsed * 1000) / 1000;

function viewOf(record: ThreadRecord): ThreadView {
  return {
    tenant: record.tenant,
    thread: record.thread,
    project_id: record.project_id,
    identity: record.identity,
    environment: record.environment,
  };
}
