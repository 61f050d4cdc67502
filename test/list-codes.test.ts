import { describe, expect, it } from "vitest";
import { codeOf, packIds, packOf, packOfCodes, unpack } from "../src/adapters/sqlite-vector-index/list-codes";
import { seededRandom } from "../src/adapters/sqlite-vector-index/seeded-random";

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
