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

export async function loadTokenCounter(): Promise<Counter> {
  if (!counter) {
    const { countTokens } = await import("gpt-tokenizer/encoding/cl100k_base");
    counter = (text: string) => (text ? countTokens(text, PLAIN_TEXT) : 0);
  }
  return counter;
}
