import type { FactEventInput, IngestOutput } from "../../api/schemas";
import type { FactVersion } from "../../domain/fact-version";
import type { FactRead } from "../../domain/trace";
import { keySlot } from "../../entities/fact-entities";
import { entityLookup } from "../../entities/query-entities";
import { EntityResolver } from "../../entities/resolve-on-write";
import { DEFAULT_AUTHORITY_LADDER } from "../../facts/authority";
import { type AnnounceTo, announceRevision } from "../../facts/fact-announcements";
import { FactCandidateCache } from "../../facts/fact-candidate-cache";
import { type FactCandidates, searchTerms } from "../../facts/fact-candidates";
import { FactRepository, type FactsWritten, StaleFactPlan } from "../../facts/fact-repository";
import { planFactWrites } from "../../facts/plan-writes";
import { prepareFact } from "../../facts/prepare-fact";
import type { MentionExtractor } from "../../ports/mention-extractor";
import type { NearFact } from "../../project-index/project-index-rpc";
import { projectDatabase } from "../../tenancy/placement";
import type { Tenant } from "../../tenancy/registry";
import { readerOf, type ThreadRecord } from "../thread-record";
import type { ProjectFactIndex } from "./project-fact-index";

/**
 * A write that keeps losing races this often is reported rather than retried for ever. No wait between
 * attempts: D1 runs batches one at a time, so every round has a winner and N racing writers are done
 * in N rounds, while a timer inside the object's exclusive section could stall it under load.
 */
const MAX_WRITE_ATTEMPTS = 50;

export type StampedFact = FactEventInput & { id: string; ts: string };

/** A write that reached D1, with the project it was in: what `announce` tells the other holders. */
export type FactsWrittenTo = FactsWritten & { projectId: string };

/**
 * The facts capability of a thread. Facts live in the tenant's D1 (src/facts), written by any thread of
 * the project; this module writes the ones that arrive through this thread (planned against what is
 * stored, applied as one batch), reads the candidates a compile or an extraction run considers through
 * D1's indexes (src/facts/fact-candidates.ts), and holds the last few searches while the project does not
 * change: every write announces itself to the project's readers (src/facts/fact-candidate-cache.ts). It
 * owns no table of the thread's own storage.
 */
export class ThreadFacts {
  /** The last few searches' candidates, valid while no newer project revision is announced. */
  private readonly cache = new FactCandidateCache();
  /** Resolves the entities each fact names before it is written (src/entities). */
  private readonly entities = new EntityResolver();

  constructor(
    private readonly announceTo: AnnounceTo,
    private readonly projectIndex: ProjectFactIndex,
    /** Who reads the mentions of a tenant's facts (src/extraction/select-adapters.ts); the rules by default. */
    private readonly mentionsFor: (tenant: Tenant) => MentionExtractor | undefined = () => undefined,
  ) {}

  /**
   * The facts a compile (or an extraction run) of this thread considers for `text` (its query, or the
   * messages it extracts from), and how they were read. `maxTerms` bounds the words searched for.
   */
  async read(
    tenant: Tenant,
    record: ThreadRecord,
    text: string,
    maxTerms?: number,
    vector: Promise<number[] | null> = Promise.resolve(null),
  ): Promise<{ candidates: FactCandidates; read: FactRead; near: PromiseLike<NearFact[]> }> {
    const database = await projectDatabase(tenant, record.project_id);
    const named = () => entityLookup(database, record.project_id, text, tenant.entity_thresholds);
    const userId = record.identity.user_id;
    const index = this.projectIndex;
    return this.cache.read(
      new FactRepository(database),
      readerOf(record),
      searchTerms(text, maxTerms),
      Date.now(),
      named,
      {
        nearest: () => vector.then((v) => index.nearest(tenant.name, record.project_id, userId, v)),
        search: async (request, withNearest) =>
          index.search(tenant.name, record.project_id, userId, withNearest ? await vector : null, request),
      },
    );
  }

  /** Persistent facts go to the tenant's D1 in one batch, planned against what is stored. */
  async write(
    record: ThreadRecord,
    tenant: Tenant,
    events: readonly StampedFact[],
    receivedAt: string,
    countTokens: (text: string) => number,
  ): Promise<{ outcomes: IngestOutput["facts"]; written?: FactsWrittenTo }> {
    if (events.length === 0) return { outcomes: [] };
    const database = await projectDatabase(tenant, record.project_id);
    const repository = new FactRepository(database);
    const writer = {
      projectId: record.project_id,
      threadId: record.thread,
      identity: record.identity,
      ladder: tenant.authority_ladder ?? DEFAULT_AUTHORITY_LADDER,
      receivedAt,
      countTokens,
    };
    const rows = events.map((f) => prepareFact(f, writer));
    const entities = await this.entities.resolve(
      database,
      writer,
      rows,
      tenant.entity_thresholds,
      this.mentionsFor(tenant),
    );
    const references = (r: FactVersion) => [
      ...(r.supersedes ? [r.supersedes] : []),
      ...(JSON.parse(r.dependsOnJson) as string[]),
    ];
    const keys = rows.flatMap((r) => [r.key, ...references(r)]);
    const ids = rows.flatMap((r) => [r.id, ...references(r)]);
    // The oldest valid time written: stored chains newer than it are loaded whole, to splice into.
    const oldest = rows.map((r) => r.validFrom).sort()[0];
    // Other threads of the project write the same slots at the same time. A plan made against versions
    // another writer replaced in between is refused by the storage (StaleFactPlan) and made again
    // against what won, so no write is lost and each slot keeps one current version and one chain.
    // One slot across keys: the current facts about the registered entities the keys name are
    // candidates for the same slot too.
    const slots = new Map<string, ReturnType<typeof keySlot>>();
    const slotIn = (key: string) => {
      let slot = slots.get(key);
      if (slot === undefined) {
        slot = keySlot(key, entities.registry, tenant.entity_thresholds);
        slots.set(key, slot);
      }
      return slot;
    };
    const slotOf = (row: FactVersion) => slotIn(row.key)?.slot ?? null;
    const named = [...new Set(rows.flatMap((row) => slotIn(row.key)?.entityIds ?? []))];
    for (let attempt = 1; ; attempt++) {
      const loaded = await repository.loadForPlanning(record.project_id, ids, keys, oldest);
      const existing = named.length
        ? withRows(loaded, await repository.currentReferencing(record.project_id, named))
        : loaded;
      const plan = planFactWrites(existing, rows, receivedAt, slotOf);
      let written: FactsWritten | undefined;
      try {
        const inserted = new Set(plan.inserts.map((r) => r.id));
        written = await repository.apply(record.project_id, plan, entities.writes(inserted));
      } catch (error) {
        if (!(error instanceof StaleFactPlan) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
        continue;
      }
      // This thread's own next read must see the write.
      if (written) this.cache.announce(record.project_id, this.cache.token, written.revision);
      if (written) {
        const closed = plan.closures.map((c) => c.id);
        this.projectIndex.afterWrite(tenant.name, record.project_id, plan.inserts, closed, written.revision);
      }
      return {
        outcomes: plan.outcomes,
        ...(written ? { written: { ...written, projectId: record.project_id } } : {}),
      };
    }
  }

  /**
   * Tells every other thread holding the project's facts in memory that a write reached `revision`,
   * before the write is acknowledged, so their next compile reads it. A holder that is gone is
   * unregistered; a call that fails is logged, and the holder's periodic recheck covers it. Call
   * outside any exclusive section: announcing waits on other objects, which may be announcing to this one.
   */
  async announce(tenant: Tenant, thread: string, written?: FactsWrittenTo): Promise<void> {
    if (!written) return;
    const { projectId } = written;
    const repository = async () => new FactRepository(await projectDatabase(tenant, projectId));
    await announceRevision(this.announceTo, tenant.name, projectId, written, repository, thread);
  }

  /** How many fact versions this thread holds in memory. */
  heldRows(): number {
    return this.cache.heldRows();
  }

  /** Whether a write announced facts this thread has not read yet. */
  behind(): boolean {
    return this.cache.behind();
  }

  /** Another thread's write reached `revision`; false when this object is not that registered reader. */
  changed(projectId: string, token: string, revision: number): boolean {
    return this.cache.announce(projectId, token, revision);
  }
}

/** Stored rows with more stored rows, each once. */
function withRows(rows: FactVersion[], more: FactVersion[]): FactVersion[] {
  const seen = new Set(rows.map((r) => r.id));
  return [...rows, ...more.filter((r) => !seen.has(r.id))];
}
