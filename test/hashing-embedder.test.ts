import murmurhash from "murmurhash";
import { describe, expect, it } from "vitest";
import { HashingEmbedder, stem, tokenize } from "../src/adapters/hashing-embedder";
import { cosine } from "../src/ports/embedder";
import { pinnedTexts } from "./support/embedder-texts";

const embedder = new HashingEmbedder();

async function similarity(a: string, b: string, e = embedder): Promise<number> {
  const [va, vb] = await e.embed([a, b]);
  return cosine(va as number[], vb as number[]);
}

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe("HashingEmbedder", () => {
  it("gives identical texts a cosine of 1", async () => {
    expect(await similarity("Use Redis for caching", "Use Redis for caching")).toBeCloseTo(1, 10);
  });

  it("scores shared words high and unrelated text low", async () => {
    expect(await similarity("Use Redis for caching", "Use Redis for the cache layer")).toBeGreaterThan(0.6);
    expect(Math.abs(await similarity("Use Redis for caching", "Quarterly revenue grew 4%"))).toBeLessThan(
      0.2,
    );
  });

  it("is robust to inflection", async () => {
    expect(await similarity("We migrated the database", "migrating databases")).toBeGreaterThan(0.9);
    expect(await similarity("cache the sessions", "caching session")).toBeGreaterThan(0.9);
    for (const [a, b] of [
      ["caching", "cached"],
      ["caches", "cache"],
      ["migration", "migrate"],
      ["policies", "policy"],
      ["stopped", "stop"],
    ]) {
      expect(stem(a as string)).toBe(stem(b as string));
    }
  });

  it("is robust to typos and partial words", async () => {
    const unrelated = await similarity("Use Redis for caching", "Quarterly revenue grew 4%");
    const typo = await similarity("Use Redis for caching", "Use Reddis for cachng");
    expect(typo).toBeGreaterThan(0.4);
    expect(typo - unrelated).toBeGreaterThan(0.3);
    expect(await similarity("Postgres", "Postgre")).toBeGreaterThan(0.5);
  });

  it("sees word order, weakly", async () => {
    const same = await similarity("redis cache", "redis cache");
    const swapped = await similarity("redis cache", "cache redis");
    expect(swapped).toBeLessThan(same - 0.05);
    expect(swapped).toBeGreaterThan(0.7);
  });

  it("does not match synonyms without a shared surface form", async () => {
    expect(Math.abs(await similarity("car", "automobile"))).toBeLessThan(0.2);
  });

  it("folds case, diacritics and apostrophes", async () => {
    expect(await similarity("CAFÉ Don't", "cafe dont")).toBeCloseTo(1, 10);
    expect(tokenize("Let's use Redis—v7.2, not 6!")).toEqual(["lets", "use", "redis", "v7", "2", "not", "6"]);
  });

  it("is deterministic across calls and instances", async () => {
    const text = "Switch to Memcached instead of Redis for the session cache";
    const [first] = await embedder.embed([text]);
    const [again] = await new HashingEmbedder().embed([text]);
    expect(again).toEqual(first);
    // Pinned values: a change here changes every stored vector, so bump VERSION in the embedder.
    expect(embedder.name).toBe("hashing-v1-384");
    const nonZero = (first as number[]).flatMap((v, i) => (v === 0 ? [] : [[i, Number(v.toFixed(6))]]));
    expect(nonZero.slice(0, 5)).toEqual([
      [1, -0.065046],
      [2, 0.065046],
      [4, -0.065046],
      [6, 0.065046],
      [13, -0.146647],
    ]);
  });

  it("gives every text the vector it gave before, bit for bit, whatever it has embedded since", async () => {
    // SHA-256 of the vectors' float64 bytes, in order, as workerd computed them before feature hashes
    // were memoised (Node's differ from it in a last bit here and there): the memo fills and empties
    // over these texts, and no vector may change (stored ones would stop matching new ones without a
    // VERSION bump).
    const texts = pinnedTexts();
    const bytes = (vectors: number[][]) => new Uint8Array(Float64Array.from(vectors.flat()).buffer);
    const digest = async (vectors: number[][]) =>
      [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes(vectors)))]
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("");
    const pinned = "d2ac44c71b619abe693587d2b43424ebc1cbac8b7fbb3d10169ff3f0b4ab206b";
    expect(await digest(await new HashingEmbedder().embed(texts))).toBe(pinned);
    // Again in reverse order, after the memo has been filled with the other texts' features.
    const reversed = await new HashingEmbedder().embed([...texts].reverse());
    expect(await digest(reversed.reverse())).toBe(pinned);
  });

  it("has the configured dimension and unit norm; a blank text is the zero vector", async () => {
    const vectors = await embedder.embed(["a", "Use Redis for caching", "x ".repeat(500), "   ", "?!"]);
    expect(vectors.map((v) => v.length)).toEqual([384, 384, 384, 384, 384]);
    for (const v of vectors.slice(0, 3)) expect(norm(v)).toBeCloseTo(1, 10);
    expect(vectors.slice(3).every((v) => v.every((x) => x === 0))).toBe(true);
    expect(cosine(vectors[3] as number[], vectors[1] as number[])).toBe(0);

    const small = new HashingEmbedder({ dimensions: 64 });
    expect(small.dimensions).toBe(64);
    expect(small.name).toBe("hashing-v1-64");
    const [v] = await small.embed(["Use Redis for caching"]);
    expect(v).toHaveLength(64);
    expect(norm(v as number[])).toBeCloseTo(1, 10);
    expect(() => new HashingEmbedder({ dimensions: 8 })).toThrow(RangeError);
  });

  it("embeds an empty batch and keeps input order", async () => {
    expect(await embedder.embed([])).toEqual([]);
    const [a, b] = await embedder.embed(["alpha", "beta"]);
    const [b2] = await embedder.embed(["beta"]);
    expect(b).toEqual(b2);
    expect(a).not.toEqual(b);
  });

  // Stored vectors were made with these hashes: a version of the package that changed them would make
  // new vectors incomparable with stored ones (the embedder's VERSION would have to change).
  it("hashes with MurmurHash3 x86_32 over UTF-8 bytes (reference values)", () => {
    const utf8 = (s: string) => new TextEncoder().encode(s);
    expect(murmurhash.v3(utf8(""), 0)).toBe(0);
    expect(murmurhash.v3(utf8(""), 1)).toBe(0x514e28b7);
    expect(murmurhash.v3(utf8("hello"), 0)).toBe(0x248bfa47);
    expect(murmurhash.v3(utf8("The quick brown fox jumps over the lazy dog"), 0)).toBe(0x2e4ff723);
    // Past ASCII too: "ü:straße" is hashed over its UTF-8 bytes, as the embedder's features are.
    expect(murmurhash.v3(utf8("ü:straße"), 0x5eed_0001)).toBe(murmurhash.v3("ü:straße", 0x5eed_0001));
  });
});

describe("cosine", () => {
  it("measures the angle, is 0 for a zero vector, and refuses mismatched lengths", () => {
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 1], [2, 2])).toBeCloseTo(1, 12);
    expect(cosine([1, 0], [-3, 0])).toBe(-1);
    expect(cosine([0, 0], [1, 0])).toBe(0);
    expect(() => cosine([1, 0], [1, 0, 0])).toThrow(RangeError);
  });
});
