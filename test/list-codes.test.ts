import { describe, expect, it } from "vitest";
import {
  approximateScores,
  codeOf,
  packIds,
  packOf,
  packOfCodes,
  unpack,
} from "../src/adapters/sqlite-vector-index/list-codes";
import { seededRandom } from "../src/adapters/sqlite-vector-index/seeded-random";
import { sparse } from "../src/adapters/sqlite-vector-index/sparse-vector";

describe("the ids of a stored pack", () => {
  const random = seededRandom(11);
  const alphabet = [
    "a",
    "Z",
    "0",
    "-",
    ",",
    '"',
    "\\",
    "\n",
    "\u0001",
    "é",
    "💡",
    " ",
    "[",
    "]",
    "\\u0041",
    '","',
  ];
  const id = () =>
    Array.from(
      { length: 1 + Math.floor(random() * 6) },
      () => alphabet[Math.floor(random() * alphabet.length)],
    ).join("");

  it("read back as JSON.parse reads them, with and without characters JSON escapes", () => {
    const arrays = [
      [],
      ["only"],
      ["01J0ABCDEF", "fact-2", "m00017"],
      ...Array.from({ length: 300 }, () => Array.from({ length: Math.floor(random() * 8) }, id)),
    ];
    for (const ids of arrays) expect(packIds(JSON.stringify(ids))).toEqual(ids);
  });
});

describe("a vector's own code", () => {
  it("ranks it as its entry in a pack does", () => {
    const random = seededRandom(5);
    const dims = 24;
    const members = Array.from({ length: 9 }, (_, i) => {
      const values = Float32Array.from({ length: dims }, () => (random() < 0.4 ? 0 : random() - 0.5));
      return { id: `v${i}`, values, norm: Math.hypot(...values) };
    });
    const packed = packOf(members, dims);
    const fromCodes = packOfCodes(
      members.map((m) => ({ id: m.id, code: codeOf(m.values, m.norm, dims) })),
      dims,
    );
    expect(fromCodes).toEqual(unpack(packed.ids, packed.blob, dims));
  });
});

describe("scores by code", () => {
  it("are each member's code times the query over its non-zero dimensions, bit for bit, whatever the pack's size", () => {
    const random = seededRandom(9);
    const dims = 19;
    const vector = () => Float32Array.from({ length: dims }, () => (random() < 0.4 ? 0 : random() - 0.5));
    for (let count = 0; count <= 9; count++) {
      const members = Array.from({ length: count }, (_, i) => {
        const values = vector();
        return { id: `v${i}`, values, norm: Math.hypot(...values) };
      });
      const stored = packOf(members, dims);
      const pack = unpack(stored.ids, stored.blob, dims);
      const query = sparse(vector());
      const expected = members.map((_, i) => {
        let dot = 0;
        for (let j = 0; j < query.dims.length; j++)
          dot += (query.values[j] as number) * (pack.codes[i * dims + (query.dims[j] as number)] as number);
        return dot * (pack.factors[i] as number);
      });
      expect([...approximateScores(pack, query, dims)]).toEqual(expected);
    }
  });
});
