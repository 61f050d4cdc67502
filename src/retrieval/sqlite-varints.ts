/** SQLite's varints, as FTS5 stores its counts and each row's column lengths. */

/** SQLite's varints (big-endian groups of seven bits; a ninth byte gives all eight), as FTS5 stores counts. */
export function varints(bytes: Uint8Array): number[] {
  const values: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    let value = 0;
    for (let n = 1; ; n++) {
      const byte = bytes[i++] as number;
      if (n === 9) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if (!(byte & 0x80) || i >= bytes.length) break;
    }
    values.push(value);
  }
  return values;
}

/** The sum of the varints in a hex string: a docsize row's column lengths, the row's length. */
export function varintSum(hex: string): number {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return varints(bytes).reduce((sum, n) => sum + n, 0);
}
