/**
 * Counting a long text as the sum of its lines' counts, exactly. cl100k_base first splits text into
 * pieces with a regular expression and encodes each piece on its own, so a count is additive over any
 * split the expression itself would make. It always makes one right after a run of line breaks that
 * is followed by a non-space character: no alternative of the expression reaches past such a run (the
 * ones that take line breaks, `\s*[\r\n]`, ` ?[^\s\p{L}\p{N}]+[\r\n]*` and `\s+$`, stop at the last
 * break before the non-space, and none looks behind). So a text cut at those points counts the same as
 * the sum of its pieces, and a compile that re-emits mostly the same lines counts only the new ones.
 */

/** Where the pieces start: after each line break that a non-space character follows. */
export function segmentsOf(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let at = text.indexOf("\n");
  while (at !== -1) {
    const next = text.charCodeAt(at + 1);
    // Any whitespace continues the run (space, tab, \r, \n, \f, \v and the rest of \s are handled by
    // only cutting before characters that are certainly not whitespace: printable ASCII).
    if (next > 0x20 && next < 0x7f) {
      pieces.push(text.slice(start, at + 1));
      start = at + 1;
    }
    at = text.indexOf("\n", at + 1);
  }
  pieces.push(start === 0 ? text : text.slice(start));
  return pieces;
}

/**
 * Where a text's blocks start: right after a blank line that a printable non-space character follows.
 * Each such point is also a piece boundary (segmentsOf), so a text's count is its blocks' sum. An
 * envelope is a few sections separated this way, and most of them are the same from compile to
 * compile; counting a section by its blocks costs one look-up where its lines cost hundreds.
 */
export function blocksOf(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  let at = text.indexOf("\n\n");
  while (at !== -1) {
    const next = text.charCodeAt(at + 2);
    if (next > 0x20 && next < 0x7f) {
      blocks.push(text.slice(start, at + 2));
      start = at + 2;
    }
    at = text.indexOf("\n\n", at + 1);
  }
  blocks.push(start === 0 ? text : text.slice(start));
  return blocks;
}

/** Whole blocks whose counts are kept besides the pieces' (a block is a section: kilobytes). */
const BLOCK_LIMIT = 64;

/** Whether a line starts a piece of its own: it begins with a printable non-space character (segmentsOf). */
const startsPiece = (line: string) => {
  const first = line.charCodeAt(0);
  return first > 0x20 && first < 0x7f;
};

/** A counter that also counts lines joined by line breaks, without joining them. */
export interface LineCounter {
  (text: string): number;
  /** `count(lines.join("\n"))`, exactly. */
  lines: (lines: readonly string[]) => number;
}

/**
 * A counter that remembers each piece's count in `memo`, which the caller owns and bounds: a warm
 * thread emits mostly the lines it emitted last time. A text of several blocks is also remembered
 * block by block, in a small table of its own.
 */
export function memoizedCounter(
  count: (text: string) => number,
  memo: Map<string, number>,
  limit: number,
): LineCounter {
  const countPiece = (piece: string): number => {
    let tokens = memo.get(piece);
    if (tokens === undefined) {
      tokens = count(piece);
      if (memo.size >= limit) memo.clear();
      memo.set(ownCopy(piece), tokens);
    }
    return tokens;
  };
  const countPieces = (text: string): number => {
    let total = 0;
    for (const piece of segmentsOf(text)) total += countPiece(piece);
    return total;
  };
  const blockCounts = new Map<string, number>();
  const countBlock = (block: string): number => {
    let tokens = blockCounts.get(block);
    if (tokens === undefined) {
      tokens = countPieces(block);
      if (blockCounts.size >= BLOCK_LIMIT) blockCounts.clear();
      blockCounts.set(ownCopy(block), tokens);
    }
    return tokens;
  };
  // The count of a line followed by its line break, by the line: most pieces of an envelope are one
  // line and its break, and the line is a string the compile holds (its hash computed once), where the
  // piece would be a new slice of a new text to copy and hash on every compile.
  const brokenLines = new Map<string, number>();
  const countBrokenLine = (line: string): number => {
    let tokens = brokenLines.get(line);
    if (tokens === undefined) {
      tokens = count(`${line}\n`);
      if (brokenLines.size >= limit) brokenLines.clear();
      brokenLines.set(ownCopy(line), tokens);
    }
    return tokens;
  };
  const counter = (text: string) => {
    if (!text) return count(text);
    const blocks = blocksOf(text);
    if (blocks.length === 1) return countPieces(text);
    let total = 0;
    for (const block of blocks) total += countBlock(block);
    return total;
  };
  // The pieces segmentsOf cuts lines.join("\n") into, counted as such: one breaks after a line when the
  // next begins with a printable non-space character, so a piece is usually one line and its break.
  const countLines = (given: readonly string[]): number => {
    const lines = given.some((line) => line.includes("\n")) ? given.flatMap((l) => l.split("\n")) : given;
    if (lines.length === 0 || (lines.length === 1 && !lines[0])) return count("");
    let total = 0;
    let start = 0;
    for (let i = 0; i < lines.length; i++) {
      const last = i === lines.length - 1;
      if (!last && !startsPiece(lines[i + 1] as string)) continue;
      if (start === i) total += last ? countPiece(lines[i] as string) : countBrokenLine(lines[i] as string);
      else total += countPiece(lines.slice(start, i + 1).join("\n") + (last ? "" : "\n"));
      start = i + 1;
    }
    return total;
  };
  return Object.assign(counter, { lines: countLines });
}

/**
 * A piece is a slice of the whole text, and engines keep a slice's parent alive: a remembered piece
 * would hold on to every envelope it was cut from. A concatenation flattened by the slice after it is
 * a string of its own, with no tie to the text; JSON's round trip did the same at some fifteen times
 * the cost, paid for every new piece and section of every compile.
 */
function ownCopy(piece: string): string {
  return ` ${piece}`.slice(1);
}
