import { env } from "cloudflare:test";
import { SqliteVectorIndex } from "../../src/adapters/sqlite-vector-index/sqlite-vector-index";
import type { EventInput } from "../../src/api/schemas";
import { embedderFor, extractorFor } from "../../src/extraction/select-adapters";
import type { MentionExtractor } from "../../src/ports/mention-extractor";
import { projectIndexStub } from "../../src/project-index/project-index-stub";
import { lookupTenant } from "../../src/tenancy/registry";
import { ExtractionStore } from "../../src/thread/extraction/extraction-store";
import { ThreadExtraction } from "../../src/thread/extraction/thread-extraction";
import { ProjectFactIndex } from "../../src/thread/facts/project-fact-index";
import { ThreadFacts } from "../../src/thread/facts/thread-facts";
import { ingestEvents } from "../../src/thread/ingest";
import { LayerStore } from "../../src/thread/layers/layer-store";
import { ThreadRetrieval } from "../../src/thread/retrieval/thread-retrieval";
import { ThreadMeta } from "../../src/thread/thread-meta";
import { ThreadRecords } from "../../src/thread/thread-record";
import { Transcript } from "../../src/thread/transcript/transcript";

/**
 * A thread's capabilities wired over a Durable Object's storage by hand, without the object: no
 * background upkeep runs, so a test sees each state between a write and the extraction that follows it.
 * Call inside runInDurableObject, with the thread already created over HTTP (tenant `acme`).
 */
export function bareThread(
  state: DurableObjectState,
  thread: string,
  /**
   * Who reads entity mentions of facts and messages (the tenant's choice, the rules, by default), and the
   * storage's SQL as the capabilities see it (a test may watch the statements through a wrapper).
   */
  options: { mentions?: MentionExtractor; sql?: SqlStorage } = {},
) {
  const host = {
    sql: options.sql ?? state.storage.sql,
    transaction: <T>(run: () => T) => state.storage.transactionSync(run),
    exclusive: <T>(run: () => Promise<T>) => state.blockConcurrencyWhile(run),
    now: () => new Date().toISOString(),
  };
  const meta = new ThreadMeta(host);
  const records = new ThreadRecords(meta, host);
  const vectors = new SqliteVectorIndex(host.sql);
  const transcript = new Transcript(host, meta, vectors);
  const layers = new LayerStore(host);
  // Facts reach the project's index as they do from an object: in the background of the write.
  const projectIndex = new ProjectFactIndex(
    { background: (work) => state.waitUntil(work) },
    (tenant, projectId) => projectIndexStub(env, tenant, projectId),
    () => embedderFor(env),
  );
  const facts = new ThreadFacts(
    async () => true,
    projectIndex,
    () => options.mentions,
  );
  const store = new ExtractionStore(host, meta, (ids) => transcript.timesOf(ids));
  const extraction = new ThreadExtraction(host, store, transcript, layers, facts, vectors);
  const retrieval = new ThreadRetrieval(host, transcript, vectors);
  const tenant = lookupTenant(env, "acme");
  const record = records.owned("acme", thread);
  if (!tenant || !record) throw new Error(`create thread '${thread}' of tenant acme first`);
  return {
    transcript,
    layers,
    store,
    extraction,
    retrieval,
    ingest: (events: EventInput[]) =>
      ingestEvents(host, { transcript, layers, facts }, record, tenant, events),
    backfill: (limits: { limit: number; restart: boolean }) =>
      extraction.backfillMentions(record, tenant, limits, options.mentions),
    extract: () =>
      extraction.run(record, tenant, {
        extractor: extractorFor(tenant, env),
        embedder: embedderFor(env),
        mentions: options.mentions,
      }),
  };
}
