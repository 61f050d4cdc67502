/**
 * Token counting with the cl100k_base BPE. The encoder's rank table is large, so it is imported on
 * first use rather than at Worker start-up; counts are taken once, when an item is written, and stored.
 */
type Counter = (text: string) => number;

/**
 * Special-token strings (`<|endoftext|>`, `<|im_start|>` …) are counted as the plain characters they
 * are. By default the library throws on them, and any client may write them in any text field; nothing
 * here ever sends a special token to a model, so they are never meant as one. Allowing none and
 * disallowing none makes the encoder split them like ordinary text, which also keeps counts additive
 * over the pieces src/tokens/segments.ts cuts.
 */
const PLAIN_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

let counter: Counter | undefined;

/**
 * A run this long of letters, of punctuation or of whitespace is one piece for cl100k's splitting
 * expression, and the encoder's time on one piece grows with the square of its length: 200,000 letters
 * with no space or punctuation ("ééé…", unpunctuated CJK) took 14 s, a 1 MiB one would take minutes and
 * hold the thread's object all along. Such a run is counted in slices of LONG_RUN_SLICE characters
 * instead: linear, and exact but for at most a token or so per slice (a merge across a slice's edge),
 * on text no model reads as words anyway. Everything else is counted exactly.
 */
export const LONG_RUN = 1_024;
export const LONG_RUN_SLICE = 512;
const LONG_RUNS = new RegExp(`\\p{L}{${LONG_RUN},}|[^\\s\\p{L}\\p{N}]{${LONG_RUN},}|\\s{${LONG_RUN},}`, "gu");

/** `count` over `text`, with every run of LONG_RUN characters or more counted slice by slice. */
export function countInSlices(count: Counter, text: string): number {
  if (text.length < LONG_RUN) return count(text);
  let total = 0;
  let last = 0;
  for (const run of text.matchAll(LONG_RUNS)) {
    const at = run.index ?? 0;
    if (at > last) total += count(text.slice(last, at));
    for (let i = 0; i < run[0].length; i += LONG_RUN_SLICE)
      total += count(run[0].slice(i, i + LONG_RUN_SLICE));
    last = at + run[0].length;
  }
  return last === 0 ? count(text) : total + (last < text.length ? count(text.slice(last)) : 0);
}

export async function loadTokenCounter(): Promise<Counter> {
  if (!counter) {
    const { countTokens } = await import("gpt-tokenizer/encoding/cl100k_base");
    const exact = (text: string) => (text ? countTokens(text, PLAIN_TEXT) : 0);
    counter = (text: string) => countInSlices(exact, text);
  }
  return counter;
}
