import type { EpisodeRecord } from "../../compiler/types";
import type { FactVersion } from "../../domain/fact-version";
import type { Embedder } from "../../ports/embedder";
import type { VectorIndex } from "../../ports/vector-index";
import {
  FUSION_DEPTH,
  MIN_VECTOR_SIMILARITY,
  rankEpisodes,
  withEntityEpisodes,
} from "../../retrieval/episodes";
import { readTimeQuery } from "../../retrieval/time-query";
import { itemNamespace } from "../extraction/thread-extraction";
import type { SqlHost } from "../host";
import type { Transcript } from "../transcript/transcript";
import { FactVectors } from "./fact-vectors";

/** Retrieved messages handed to the compiler at most; the budget keeps fewer. */
const MAX_EPISODES = 200;
/** A longer silence between two messages starts a new session: neighbour rescue does not cross it. */
const SESSION_GAP_MS = 60 * 60 * 1000;

const messageNamespace = (thread: string, embedder: Embedder) => `${thread}/messages/${embedder.name}`;
const factNamespace = (thread: string, embedder: Embedder) => `${thread}/facts/${embedder.name}`;

/**
 * Retrieval over the thread: earlier messages (FTS5 and vectors, with session neighbours) and the vector
 * half of fact and item ranking. Reads only search; `indexMessages` and `indexFacts` keep the indexes
 * current and run on the write path (src/thread/upkeep.ts). A failing embedder or index costs the vector
 * half of a ranking, never a compile.
 */
export class ThreadRetrieval {
  private readonly factVectors: FactVectors;

  constructor(
    host: SqlHost,
    private readonly transcript: Transcript,
    private readonly vectors: VectorIndex,
  ) {
    this.factVectors = new FactVectors(host, vectors);
  }

  /** The query's embedding, once per compile for every vector search; null when the embedder fails. */
  async queryVector(thread: string, embedder: Embedder, query: string): Promise<number[] | null> {
    try {
      const [vector] = await embedder.embed([query]);
      return vector ?? null;
    } catch (error) {
      console.error("query embedding failed", thread, error);
      return null;
    }
  }

  /**
   * Earlier messages relevant to the query: FTS5 and vector candidates, their session neighbours, ranked
   * by src/retrieval.
   */
  async episodes(
    thread: string,
    query: string,
    now: string,
    embedder: Embedder,
    queryVector: number[] | null,
  ): Promise<EpisodeRecord[]> {
    const index = this.transcript.episodes;
    const lexical = index.lexical(query, FUSION_DEPTH);
    const passages = index.passageLexical(query, FUSION_DEPTH);
    let vector: { id: string; score: number }[] = [];
    try {
      if (queryVector) {
        vector = await index.semantic(
          queryVector,
          messageNamespace(thread, embedder),
          FUSION_DEPTH,
          MIN_VECTOR_SIMILARITY,
        );
      }
    } catch (error) {
      console.error("episode vector search failed", thread, error);
    }
    // Only matches at MIN_VECTOR_SIMILARITY or above take part in the ranking (rankEpisodes leaves the
    // others out), so the index is asked for those alone (it then reads less), and the others' records
    // and neighbours are not read: with the offline embedder most of the 100 nearest are below it.
    vector = vector.filter((v) => v.score >= MIN_VECTOR_SIMILARITY);
    const hits = index.records([...lexical, ...passages, ...vector.map((v) => v.id)]);
    const adjacency = index.adjacency(hits.values(), SESSION_GAP_MS);
    const neighbourIds = [...adjacency.values()].flatMap((a) =>
      [a.previous, a.next].filter((id): id is string => id !== undefined && !hits.has(id)),
    );
    const records = new Map([...hits, ...index.records(neighbourIds)]);
    // The day each message was said is rendered by the compiler, once per group of lines.
    const { period } = readTimeQuery(query, now);
    return rankEpisodes({ lexical, passages, vector, messages: records, adjacency, now, period })
      .slice(0, MAX_EPISODES)
      .flatMap((ranked) => {
        const record = records.get(ranked.id);
        return record ? [{ ...record, score: ranked.score, similarity: ranked.similarity }] : [];
      });
  }

  /**
   * The episodes with the thread's messages that refer to an entity the query names (`messageIds`, found
   * in the entity registry) ranked among them as close matches, whatever words they used for it.
   */
  withNamedMessages(episodes: readonly EpisodeRecord[], messageIds: readonly string[]): EpisodeRecord[] {
    if (messageIds.length === 0) return [...episodes];
    const records = this.transcript.episodes.records(messageIds);
    const named = messageIds.flatMap((id) => {
      const held = episodes.find((e) => e.id === id);
      const record = held ?? records.get(id);
      return record ? [{ ...record, score: held?.score ?? 0, similarity: held?.similarity ?? 0 }] : [];
    });
    return withEntityEpisodes(episodes, named).slice(0, MAX_EPISODES);
  }

  /**
   * The vector half of fact and state-item retrieval: the current facts and the items nearest the query
   * in the thread's vector index, with their cosine, by object id; pass 5 fuses them with BM25.
   */
  async nearestState(
    thread: string,
    embedder: Embedder,
    queryVector: number[] | null,
  ): Promise<Map<string, number>> {
    const similar = new Map<string, number>();
    if (!queryVector) return similar;
    try {
      const nearFacts = await this.factVectors.nearest(
        embedder,
        factNamespace(thread, embedder),
        queryVector,
        FUSION_DEPTH,
      );
      // Items are written to the index by extraction, under the thread's own namespace.
      const nearItems = queryVector.some((v) => v !== 0)
        ? await this.vectors.query(queryVector, {
            topK: FUSION_DEPTH,
            namespace: itemNamespace(thread, embedder),
          })
        : [];
      for (const match of [...nearFacts, ...nearItems]) similar.set(match.id, match.score);
    } catch (error) {
      console.error("fact and item vector search failed", thread, error);
    }
    return similar;
  }

  /** Embeds messages not embedded yet; true when some may remain for another pass. */
  indexMessages(thread: string, embedder: Embedder): Promise<boolean> {
    return this.transcript.embedPending(embedder, messageNamespace(thread, embedder));
  }

  /** Indexes the current facts among `rows` and drops retired ones; true when some may remain. */
  indexFacts(thread: string, rows: readonly FactVersion[], embedder: Embedder): Promise<boolean> {
    return this.factVectors.sync(rows, embedder, factNamespace(thread, embedder));
  }

  /** `indexFacts` was given every version the reader may know of at `revision`, and is done with them. */
  factsIndexedWhole(embedder: Embedder, revision: number): void {
    this.factVectors.heldWhole(embedder, revision);
  }

  /**
   * Whether the thread's fact index holds every current fact of the project at `revision`: then the
   * project's own index can find none it does not (the same vectors, and the nearest 100 here hold its
   * nearest 25), and a compile need not wait for it.
   */
  holdsProjectFacts(embedder: Embedder, revision: number): boolean {
    return this.factVectors.holdsWhole(embedder, revision);
  }
}
