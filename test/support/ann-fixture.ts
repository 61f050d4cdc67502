import { env, runInDurableObject } from "cloudflare:test";
import { HashingEmbedder } from "../../src/adapters/hashing-embedder";
import type { ListSettings } from "../../src/adapters/sqlite-vector-index/inverted-lists";
import { SqliteVectorIndex } from "../../src/adapters/sqlite-vector-index/sqlite-vector-index";
import type { VectorIndex, VectorRecord } from "../../src/ports/vector-index";
import { chatSentences } from "./chat-sentences";

/**
 * Inverted lists at a test's scale: trained at 500 vectors, lists of at most 64, approximate search
 * above 1,000 vectors reading the 8 nearest lists; a few thousand vectors then behave as 100,000 do
 * with the defaults (many lists, each query reading a small share of them).
 */
export const LISTS: ListSettings = { approximateAbove: 1000, trainAt: 500, listSize: 64, probes: 8 };
export const NAMESPACE = "thread-ann/messages/hashing-v1-384";

const embedder = new HashingEmbedder();

export const embed = (text: string) => embedder.embedOne(text);

/** Records of chat sentences, ids `m0000…` from `first`, every third one tagged a decision. */
export function sentenceRecords(texts: string[], first = 0): VectorRecord[] {
  return texts.map((text, i) => ({
    id: `m${String(first + i).padStart(5, "0")}`,
    namespace: NAMESPACE,
    values: embed(text),
    metadata: { kind: (first + i) % 3 === 0 ? "decision" : "message" },
  }));
}

/** Queries: chat sentences the namespace does not hold, embedded. */
export const probeVectors = (count: number) => chatSentences(count, 2).map(embed);

/** Writes records 100 at a time, as the thread's upkeep does. */
export async function writeInBatches(index: VectorIndex, records: VectorRecord[]): Promise<void> {
  for (let start = 0; start < records.length; start += 100)
    await index.upsert(records.slice(start, start + 100));
}

/** The index with the test's lists. */
export const listed = (sql: SqlStorage, lists: Partial<ListSettings> = {}) =>
  new SqliteVectorIndex(sql, { lists: { ...LISTS, ...lists } });

/** The same storage searched exactly: lists never used nor trained by this instance. */
export const exactOver = (sql: SqlStorage) =>
  new SqliteVectorIndex(sql, {
    lists: { approximateAbove: Number.MAX_SAFE_INTEGER, trainAt: Number.MAX_SAFE_INTEGER },
  });

/** Runs `body` in a fresh Durable Object, over its SQLite storage. */
export function inFreshObject<T>(
  body: (sql: SqlStorage, storage: DurableObjectStorage) => Promise<T>,
): Promise<T> {
  const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
  return runInDurableObject(stub, (_instance, state) => body(state.storage.sql, state.storage));
}
