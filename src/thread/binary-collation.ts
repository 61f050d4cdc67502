/**
 * SQLite's BINARY collation in JavaScript: text compared by its UTF-8 bytes, which is code-point order.
 * JavaScript's `<` compares UTF-16 code units, which differs when a surrogate (U+D800–U+DFFF, half of a
 * character above U+FFFF) meets a unit in U+E000–U+FFFF; the remap below puts surrogates above those.
 * In-memory copies of ordered rows sort with this so they agree with the ORDER BY they stand in for.
 */
export function compareBinary(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit <= 0xdfff ? unit + 0x2000 : unit - 0x800;
}
