import { ulid } from "ulid";
import type { ContextInput, ContextResponseOutput } from "../api/schemas";
import { CompileCache } from "../compiler/cache/compile-cache";
import { TextMemos } from "../compiler/cache/memos";
import { compileContext, MESSAGE_TAIL } from "../compiler/compile";
import type { CompileInput } from "../compiler/compile-input";
import type { EpisodeRecord, MessageRecord } from "../compiler/types";
import type { RegistryPart } from "../domain/trace";
import { messagesNaming } from "../entities/message-mentions";
import { DEFAULT_AUTHORITY_LADDER } from "../facts/authority";
import { toInstant } from "../facts/time";
import type { Embedder } from "../ports/embedder";
import { projectDatabase } from "../tenancy/placement";
import type { Tenant } from "../tenancy/registry";
import { loadTokenCounter } from "../tokens/count-tokens";
import { persistTrace } from "../traces/persist-trace";
import { withTraceDetail } from "../traces/trace-detail";
import type { ExtractionStore } from "./extraction/extraction-store";
import type { ThreadFacts } from "./facts/thread-facts";
import type { ClockHost } from "./host";
import type { LayerStore } from "./layers/layer-store";
import type { ThreadRetrieval } from "./retrieval/thread-retrieval";
import type { ThreadRecord } from "./thread-record";
import type { Transcript } from "./transcript/transcript";

/**
 * Memos keyed by text alone (a pure function of the text each), shared by every thread object of this
 * isolate: a thread that starts cold finds the lines, terms and figures its neighbours worked out.
 * Bounded (src/compiler/memo-tables.ts).
 */
const isolateTextMemos = new TextMemos();

/** How current the state a compile read was: extraction's progress when it started. */
export interface ExtractionStatus {
  status: "current" | "partial" | "failed";
  pending_messages: number;
}

/** What compilation reads: each capability's current state, never its tables. */
export interface CompilationSources {
  transcript: Transcript;
  layers: LayerStore;
  extraction: ExtractionStore;
  facts: ThreadFacts;
  retrieval: ThreadRetrieval;
}

/**
 * A context read: it gathers the thread's state from the capabilities that own it, hands it to the pure
 * compiler (src/compiler) and persists what the compile found, its trace and the confirmations its
 * quarantine raised. It extracts nothing and maintains no index: the write path does (src/thread/upkeep.ts).
 */
export class Compilation {
  /** What compiles of this thread can reuse while the object stays warm (src/compiler/compile-cache.ts). */
  private readonly cache = new CompileCache(isolateTextMemos);
  /** What the last compile handed the passes: what `warm` compiles again. */
  private last: CompileInput | undefined;

  constructor(
    private readonly clock: ClockHost,
    private readonly sources: CompilationSources,
  ) {}

  async compile(
    record: ThreadRecord,
    tenant: Tenant,
    embedder: Embedder,
    request: ContextInput,
    extraction: ExtractionStatus,
    waitedMs = 0,
  ): Promise<ContextResponseOutput> {
    const { transcript, facts, retrieval } = this.sources;
    const items = this.sources.extraction;
    const thread = record.thread;
    // The laps below split compile_ms for trace.timings; what a deployed Worker's clock shows of them is
    // said in schemas.ts.
    const started = performance.now();
    // The candidate facts' D1 search is in flight while the thread's own (synchronous) reads run, so its
    // wait overlaps them instead of adding to them. It is sent first: the token
    // counter's first load (once per isolate, a large rank table) overlaps it too.
    // The query's vector goes to the project's fact index: with the facts nearest it and, when the
    // thread holds the rest at the current revision, the question's own part of the fact search.
    const vectorPending = retrieval.queryVector(thread, embedder, request.query);
    const factsPending = facts.read(tenant, record, request.query, undefined, vectorPending);
    const countTokens = await loadTokenCounter();
    const tail = transcript.tail(MESSAGE_TAIL);
    const now = request.now ? toInstant(request.now) : this.clock.now();
    const queryVector = await vectorPending;
    const retrieved = await retrieval.episodes(thread, request.query, now, embedder, queryVector);
    const state = this.threadState(tail, retrieved);
    const { messages, itemRecords, statedClaims, working, environmentFacts } = state;
    let { episodes } = state;
    const { workingLayer, environmentLayer } = state;
    const layerHistoryLeftOut = workingLayer.leftOut + environmentLayer.leftOut;
    const threadRead = performance.now();
    const { candidates: factCandidates, read: factsRead, near: nearPending } = await factsPending;
    // The thread's messages that refer to an entity the question names by another of its names are
    // episodes the question asks about: found by the entity's names in what extraction recorded of them.
    const namedEntities = factCandidates.entities.filter((e) => !e.pending);
    const namedMessages =
      namedEntities.length && factCandidates.entityNames
        ? messagesNaming(namedEntities, factCandidates.entityNames, (names, limit) =>
            items.messagesNamed(names, limit),
          )
        : [];
    const factsArrived = performance.now();
    if (namedMessages.length) {
      const ranked = new Set(episodes.map((e) => e.id));
      episodes = retrieval.withNamedMessages(
        episodes,
        namedMessages.map((m) => m.messageId),
      );
      // The turns it added are screened and their claims read as the ranked ones were.
      const added = episodes.filter((e) => !ranked.has(e.id)).map((e) => e.id);
      const addedScreens = transcript.screensOf(added);
      episodes = episodes.map((e) => {
        const screen = addedScreens.get(e.id);
        return screen ? { ...e, screen } : e;
      });
      for (const [id, claims] of items.statedClaims(added)) statedClaims.set(id, claims);
    }
    const similar = await retrieval.nearestState(thread, embedder, queryVector);
    // The project index's cosines rank the facts the thread's own index does not hold; when it holds the
    // whole project at this revision, there are none, and the project index is not waited for.
    const wholeProject =
      !factCandidates.truncated.includes("recent") &&
      retrieval.holdsProjectFacts(embedder, factCandidates.revision);
    if (!wholeProject) {
      for (const near of await nearPending) if (!similar.has(near.id)) similar.set(near.id, near.score);
    }
    // A fact that refers to an entity the question names is about what the question asks, in whatever
    // words it was written: it ranks as a close semantic match.
    for (const id of factCandidates.entityFactIds) {
      similar.set(id, Math.max(similar.get(id) ?? 0, ENTITY_MATCH_SIMILARITY));
    }
    const passesStarted = performance.now();
    const input: CompileInput = {
      query: request.query,
      budgetTokens: request.budget_tokens,
      factsShare: request.facts_share,
      now,
      tenantId: tenant.name,
      projectId: record.project_id,
      threadId: thread,
      taskId: request.task_id,
      taskType: request.task_type,
      requestRoles: request.roles,
      identity: record.identity,
      environment: record.environment,
      ladder: tenant.authority_ladder ?? DEFAULT_AUTHORITY_LADDER,
      facts: factCandidates.rows,
      pendingEntities: factCandidates.pending,
      ...registryOf(factCandidates.base?.registry, tenant),
      working,
      environmentFacts,
      items: itemRecords,
      statedClaims,
      messages,
      episodes,
      similar,
      countTokens,
      format: request.format,
      system: request.system,
      tools: request.tools,
      cache: this.cache,
    };
    const output = compileContext(input);
    this.last = input;
    const passesDone = performance.now();
    this.raiseConfirmations(output.trace.quarantined, countTokens);
    const timings = {
      thread_reads_ms: milliseconds(threadRead - started + (passesStarted - factsArrived)),
      facts_ms: milliseconds(factsArrived - threadRead),
      passes_ms: milliseconds(passesDone - passesStarted),
      facts_read: factsRead,
      waited_ms: milliseconds(waitedMs),
    };
    const value = {
      ...output,
      trace: {
        ...output.trace,
        candidates: {
          ...output.trace.candidates,
          facts: { ...factCandidates.counts, truncated: factCandidates.truncated },
          truncated: factCandidates.truncated.length > 0 || layerHistoryLeftOut > 0,
          ...(layerHistoryLeftOut > 0
            ? {
                layer_history: {
                  kept: workingLayer.replaced + environmentLayer.replaced,
                  left_out: layerHistoryLeftOut,
                },
              }
            : {}),
          entities: factCandidates.entities,
          ...(factCandidates.neighbours?.length ? { neighbours: factCandidates.neighbours } : {}),
          ...(namedMessages.length
            ? {
                entity_messages: namedMessages.map((m) => ({
                  message_id: m.messageId,
                  entity_id: m.entityId,
                })),
              }
            : {}),
        },
        compile_ms: milliseconds(performance.now() - started),
        timings,
        extraction,
        extraction_pending: extraction.pending_messages,
        held: {
          fact_rows: facts.heldRows(),
          compiled_objects: this.cache.size,
          message_postings: transcript.episodes.heldPostings(),
        },
      },
      trace_id: ulid(),
    };
    await persistTrace(
      {
        tenant: tenant.name,
        database: await projectDatabase(tenant, record.project_id),
        projectId: record.project_id,
        thread,
      },
      request.query,
      value,
      this.clock.now(),
    );
    return withTraceDetail(value, request.trace_detail);
  }

  /**
   * Runs the passes once more over the thread's state as it is now, with the last compile's question,
   * candidates and retrieved turns, and keeps only what the passes' caches learn
   * (src/compiler/cache/compile-cache.ts). The write path calls it once extraction has worked through a
   * backlog (src/thread/upkeep-pass.ts): a bulk import's drain adds items by the hundred, and the next
   * compile would otherwise make their objects, claims and settlement itself (some 100 ms after 1,000
   * messages, ten times a warm compile and more).
   * Nothing is stored, sent or raised, and the output is dropped: what a compile answers does not
   * depend on what its caches hold. A thread not compiled since the object started has nothing to warm.
   */
  warm(): void {
    const last = this.last;
    if (!last) return;
    const state = this.threadState(this.sources.transcript.tail(MESSAGE_TAIL), last.episodes ?? []);
    compileContext({
      ...last,
      messages: state.messages,
      episodes: state.episodes,
      items: state.itemRecords,
      statedClaims: state.statedClaims,
      working: state.working,
      environmentFacts: state.environmentFacts,
    });
  }

  /**
   * The thread's own part of a compile's input: the recent tail and the retrieved turns with their
   * screens, the state items and what the turns and the items' sources stated, and the layers.
   */
  private threadState(tail: readonly MessageRecord[], retrieved: readonly EpisodeRecord[]) {
    const { transcript, layers } = this.sources;
    const items = this.sources.extraction;
    const screens = transcript.screensOf([...tail, ...retrieved].map((m) => m.id));
    const screened = <T extends MessageRecord>(m: T): T => {
      const screen = screens.get(m.id);
      return screen ? { ...m, screen } : m;
    };
    const messages = tail.map(screened);
    const episodes = retrieved.map(screened);
    const itemRecords = items.itemRecords();
    const statedClaims = items.statedClaims([
      ...messages.map((m) => m.id),
      ...episodes.map((m) => m.id),
      ...itemRecords.flatMap((r) => r.item.refs),
    ]);
    // Copies of the held arrays (the entries themselves are frozen and shared between compiles).
    const workingLayer = layers.forCompile("working");
    const environmentLayer = layers.forCompile("environment");
    return {
      messages,
      episodes,
      itemRecords,
      statedClaims,
      working: [...workingLayer.entries],
      environmentFacts: [...environmentLayer.entries],
      workingLayer,
      environmentLayer,
    };
  }

  /** A quarantined contradiction becomes one pending confirmation per slot (seed 001). */
  private raiseConfirmations(
    quarantined: readonly { slot: string; object_id: string; conflicts_with: string[] }[],
    countTokens: (text: string) => number,
  ): void {
    const conflicts = new Map<string, string[]>();
    for (const q of quarantined) {
      const ids = [...(conflicts.get(q.slot) ?? []), q.object_id, ...q.conflicts_with];
      conflicts.set(q.slot, [...new Set(ids)]);
    }
    if (conflicts.size === 0) return;
    this.sources.extraction.raiseConfirmations(
      [...conflicts].map(([slot, objectIds]) => ({ slot, objectIds })),
      this.clock.now(),
      countTokens,
    );
  }
}

const milliseconds = (elapsed: number) => Math.round(elapsed * 1000) / 1000;

/** The similarity a fact referring to an entity the question names ranks with (a close cosine). */
const ENTITY_MATCH_SIMILARITY = 0.8;

/**
 * The project's entity registry for the compile, when the search holds it whole (a registry of at most
 * 1,000 terms, src/entities/query-entities.ts): what attributed instructions are about is then read as
 * canonical ids. Nothing when it is not held: the compile reads their words alone.
 */
function registryOf(registry: RegistryPart | undefined, tenant: Tenant): Pick<CompileInput, "registry"> {
  const entities = registry?.entities;
  return entities ? { registry: { entities, thresholds: tenant.entity_thresholds } } : {};
}
