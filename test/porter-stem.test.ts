import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { porterToken } from "../src/retrieval/porter-stem";

/** The token FTS5's `porter unicode61` tokenizer makes of each word, read from its instance table. */
async function fts5Tokens(words: readonly string[]): Promise<string[]> {
  const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
  return runInDurableObject(stub, async (_object, state) => {
    const sql = state.storage.sql;
    sql.exec("CREATE VIRTUAL TABLE stems USING fts5(w, tokenize = 'porter unicode61')");
    sql.exec("CREATE VIRTUAL TABLE stems_instance USING fts5vocab(stems, 'instance')");
    for (const [i, w] of words.entries()) sql.exec("INSERT INTO stems (rowid, w) VALUES (?, ?)", i + 1, w);
    const tokens: string[] = [];
    for (const { doc, term } of sql.exec<{ doc: number; term: string }>(
      "SELECT doc, term FROM stems_instance",
    ))
      tokens[doc - 1] = term;
    return Array.from(words, (_, i) => tokens[i] as string);
  });
}

const BASES = [
  "relat",
  "condit",
  "valen",
  "hesit",
  "digit",
  "conform",
  "radic",
  "differ",
  "vile",
  "analog",
  "vietnam",
  "predic",
  "electr",
  "hope",
  "triumph",
  "formal",
  "sensit",
  "sensibl",
  "effect",
  "caus",
  "deploy",
  "employ",
  "play",
  "sky",
  "happ",
  "cry",
  "agre",
  "feed",
  "fil",
  "fail",
  "fall",
  "control",
  "roll",
  "size",
  "fizz",
  "hop",
  "ton",
  "gener",
  "adjust",
  "depend",
  "adopt",
  "homolog",
  "communism",
  "activ",
  "bowdler",
  "irrit",
  "replac",
  "rate",
  "cease",
  "y",
  "by",
  "ay",
  "oy",
  "syzyg",
  "rhythm",
  "q3",
  "v2",
  "2024",
  "x",
];
const SUFFIXES = [
  "",
  "s",
  "es",
  "ies",
  "sses",
  "ss",
  "ed",
  "eed",
  "ing",
  "ly",
  "y",
  "ational",
  "tional",
  "enci",
  "anci",
  "izer",
  "bli",
  "abli",
  "alli",
  "entli",
  "eli",
  "ousli",
  "ization",
  "ation",
  "ator",
  "alism",
  "iveness",
  "fulness",
  "ousness",
  "aliti",
  "iviti",
  "biliti",
  "logi",
  "icate",
  "ative",
  "alize",
  "iciti",
  "ical",
  "ful",
  "ness",
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "sion",
  "tion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
  "e",
  "ll",
  "at",
  "bl",
  "iz",
  "eing",
  "ying",
];

describe("porterToken", () => {
  it("is the token FTS5's porter tokenizer makes, for words built from Porter's suffixes", async () => {
    const words = BASES.flatMap((base) => SUFFIXES.map((suffix) => base + suffix));
    const tokens = await fts5Tokens(words);
    const differing = words.filter((w, i) => porterToken(w) !== tokens[i]);
    expect(differing).toEqual([]);
  });

  it("is the token FTS5 makes for any run of ASCII letters and digits", async () => {
    // Letters weighted toward the vowels, "y" and the suffixes' consonants, so the rules' edges come up.
    const letter = fc.constantFrom(..."aeiouyyysstlnrbcdgmzwx0123".split(""));
    const words = fc.sample(
      fc.array(letter, { minLength: 1, maxLength: 14 }).map((l) => l.join("")),
      {
        numRuns: 4000,
        seed: 1795564800,
      },
    );
    const upper = ["Deployment", "RUNNING", "Q3", "iPhone"];
    const all = [...words, ...upper];
    const tokens = await fts5Tokens(all);
    const differing = all.filter((w, i) => porterToken(w) !== tokens[i]);
    expect(differing).toEqual([]);
  });

  it("leaves words it cannot work out exactly to FTS5", () => {
    expect(porterToken("café")).toBeUndefined();
    expect(porterToken("don't")).toBeUndefined();
    expect(porterToken("")).toBeUndefined();
    expect(porterToken("a".repeat(65))).toBe("a".repeat(65));
  });
});
