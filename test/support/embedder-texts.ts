/**
 * Texts whose hashing-embedder vectors are pinned (test/hashing-embedder.test.ts): everyday sentences,
 * text with diacritics, other scripts, digits and code, and enough distinct made-up words (a fixed
 * sequence, no randomness) that every feature memo the embedder may keep fills and starts again.
 */
export function pinnedTexts(): string[] {
  const fixed = [
    "Use Redis for caching",
    "Switch to Memcached instead of Redis for the session cache",
    "CAFÉ Don't — naïve résumé, São Paulo, Zürich",
    "Let's use Redis—v7.2, not 6!",
    "東京で会議があります。明日の午後三時です。",
    "Привет, как дела? Встреча в пятницу.",
    "function add(a, b) { return a + b; } // returns the sum",
    "The Q3 budget for project Kestrel is $20,000 (approved by Dana on 2024-03-05).",
    "We migrated the database; migrating databases again is not planned.",
    "",
    "!!! ??? ...",
  ];
  const syllables = ["ka", "lo", "mi", "ter", "qua", "zen", "bri", "dol", "fex", "nup", "shi", "var"];
  const made: string[] = [];
  let n = 1;
  const next = () => {
    // xorshift32: a fixed sequence, spread over all of its bits.
    n ^= n << 13;
    n ^= n >>> 17;
    n ^= n << 5;
    return n >>> 0;
  };
  for (let i = 0; i < 1_500; i++) {
    const words: string[] = [];
    for (let w = 0; w < 12; w++) {
      const length = 2 + (next() % 4);
      let word = "";
      for (let s = 0; s < length; s++) word += syllables[next() % syllables.length];
      words.push(word);
    }
    made.push(words.join(" "));
  }
  return [...fixed, ...made];
}
