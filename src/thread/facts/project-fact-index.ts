import type { FactVersion } from "../../domain/fact-version";
import type { Embedder } from "../../ports/embedder";
import type {
  FactSearchAnswer,
  FactSearchRequest,
  NearFact,
  ProjectIndexRpc,
} from "../../project-index/project-index-rpc";
import type { BackgroundHost } from "../host";

/** Facts embedded per call to the embedder at most (Workers AI takes batches of 100). */
const EMBED_CHUNK = 100;
/** Nearest facts a compile asks the project index for: a candidate source (fact-candidates.ts). */
export const NEAR_FACTS = 25;
/**
 * How long a compile waits for the project index. The index serves every thread of the project and
 * indexes their writes; a compile behind a bulk write's indexing goes on without the vector source
 * rather than wait for it (the full-text, entity and recent sources still find the facts).
 */
export const NEAR_WAIT_MS = 50;
/**
 * How long a compile waits for the project's fact replica. Longer than for the nearest facts alone: past
 * it the compile asks D1 instead, which costs more than the replica's usual answer.
 */
export const SEARCH_WAIT_MS = 100;

/** The answer, or `fallback` when it does not come within `ms`. */
async function within<T>(answer: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The vector half of a project's fact search, from a thread: the thread that writes facts embeds the
 * current versions it inserted and drops the ones it closed, in the project's index
 * (src/project-index), on the write path's background; a compile asks for the facts nearest its query,
 * whatever their age. A failing embedder or index costs the vector half, never a write or a compile:
 * the full-text, entity and recent sources still find the facts, and a fact missing from the index is
 * indexed again by its next version.
 */
export class ProjectFactIndex {
  constructor(
    private readonly background: BackgroundHost,
    private readonly index: (tenant: string, projectId: string) => ProjectIndexRpc,
    private readonly embedder: () => Embedder,
  ) {}

  /** After a committed write: its new current versions indexed, its closed ones dropped, in the background. */
  afterWrite(
    tenant: string,
    projectId: string,
    inserted: readonly FactVersion[],
    closed: readonly string[],
    revision: number,
  ): void {
    const current = inserted.filter((f) => f.txEnd === null && f.isValid);
    const retired = [...closed, ...inserted.filter((f) => f.txEnd !== null || !f.isValid).map((f) => f.id)];
    // The fact replica reads the write from D1 (in order, whichever writer's word arrives first).
    this.background.background(
      this.index(tenant, projectId)
        .advance(tenant, projectId, revision)
        .catch((error: unknown) => {
          console.error("could not tell the project index of a write", tenant, projectId, error);
        }),
    );
    if (current.length === 0 && retired.length === 0) return;
    this.background.background(
      this.apply(tenant, projectId, current, retired).catch((error: unknown) => {
        console.error("could not index facts in the project index", tenant, projectId, error);
      }),
    );
  }

  /**
   * The question's own part of a fact search, with the nearest facts, from the project index's fact
   * replica (src/project-index/fact-replica.ts); none when the index cannot answer within SEARCH_WAIT_MS,
   * and the reader searches D1.
   */
  async search(
    tenant: string,
    projectId: string,
    userId: string,
    vector: number[] | null,
    request: Pick<
      FactSearchRequest,
      "revision" | "terms" | "heldIds" | "knownIds" | "knownAt" | "outside" | "entityIds"
    >,
  ): Promise<FactSearchAnswer | undefined> {
    const namespace = this.embedder().name;
    const asked = this.index(tenant, projectId)
      .search(tenant, projectId, {
        ...request,
        userId,
        vector: vector ? { namespace, values: vector } : null,
        nearLimit: NEAR_FACTS,
      })
      .catch((error: unknown) => {
        console.error("project fact search failed", tenant, projectId, error);
        return undefined;
      });
    return within(asked, SEARCH_WAIT_MS, undefined);
  }

  /**
   * The facts nearest a query vector that this user may know of; none when the index cannot answer, or
   * not within NEAR_WAIT_MS.
   */
  async nearest(
    tenant: string,
    projectId: string,
    userId: string,
    vector: number[] | null,
  ): Promise<NearFact[]> {
    if (!vector) return [];
    const embedder = this.embedder();
    const asked = this.index(tenant, projectId)
      .nearest(tenant, projectId, embedder.name, vector, userId, NEAR_FACTS)
      .catch((error: unknown) => {
        console.error("project index search failed", tenant, projectId, error);
        return [];
      });
    return within(asked, NEAR_WAIT_MS, []);
  }

  private async apply(tenant: string, projectId: string, current: FactVersion[], retired: string[]) {
    const embedder = this.embedder();
    const index = this.index(tenant, projectId);
    if (retired.length) await index.remove(tenant, projectId, embedder.name, retired);
    for (let i = 0; i < current.length; i += EMBED_CHUNK) {
      const part = current.slice(i, i + EMBED_CHUNK);
      const vectors = await embedder.embed(part.map((f) => f.content));
      // A text with no letters or digits embeds as the zero vector, which is near nothing.
      const facts = part.flatMap((fact, k) => {
        const values = vectors[k];
        return values?.some((v) => v !== 0) ? [{ id: fact.id, values, user: fact.userId ?? "" }] : [];
      });
      if (facts.length) await index.upsert(tenant, projectId, embedder.name, facts);
    }
  }
}
