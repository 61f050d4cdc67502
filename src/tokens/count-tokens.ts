/**
 * Token counting with the cl100k_base BPE. The encoder's rank table is large, so it is imported on
 * first use rather than at Worker start-up; counts are taken once, when an item is written, and stored.
 */
type Counter = (text: string) => number;

let counter: Counter | undefined;

export async function loadTokenCounter(): Promise<Counter> {
  if (!counter) {
    const { countTokens } = await import("gpt-tokenizer/encoding/cl100k_base");
    // Special-token strings ("<|endoftext|>") in stored text are plain text: the encoder would refuse
    // them by default, and any text a client sends must be countable.
    const asText = { disallowedSpecial: new Set<string>() };
    counter = (text: string) => (text ? countTokens(text, asText) : 0);
  }
  return counter;
}
