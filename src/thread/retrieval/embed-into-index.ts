import type { Embedder } from "../../ports/embedder";
import type { VectorIndex } from "../../ports/vector-index";

/** Texts per embedder call: Workers AI takes up to 100 per request. */
const EMBED_BATCH = 100;

/**
 * Embeds texts batch by batch and upserts their vectors under one namespace, calling `embedded` with
 * each batch's ids once it is stored. A blank text embeds as the zero vector, which an index refuses;
 * it is reported embedded all the same, so it is not tried again.
 */
export async function embedIntoIndex(
  embedder: Embedder,
  vectors: VectorIndex,
  namespace: string,
  kind: string,
  entries: readonly { id: string; text: string }[],
  embedded: (ids: string[]) => void,
): Promise<void> {
  for (let start = 0; start < entries.length; start += EMBED_BATCH) {
    const batch = entries.slice(start, start + EMBED_BATCH);
    const values = await embedder.embed(batch.map((e) => e.text));
    await vectors.upsert(
      batch
        .map((e, i) => ({ id: e.id, namespace, values: values[i] ?? [], metadata: { kind } }))
        .filter((r) => r.values.some((v) => v !== 0)),
    );
    embedded(batch.map((e) => e.id));
  }
}
