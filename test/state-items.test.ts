import { describe, expect, it } from "vitest";
import {
  computeUid,
  DEFAULT_STATUS,
  hasReplacementVerb,
  hasSupersessionSignal,
  normalizeText,
  REPLACEMENT_VERBS,
  resolveStatusMerge,
  SUPERSESSION_TRIGGERS,
  validateItem,
} from "../src/items/items";
import { sha256Hex } from "../src/items/sha256";
import type { StateItemType } from "../src/items/types";

async function webCryptoHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("sha256Hex", () => {
  it.each([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    ["a".repeat(1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"],
    ["café", "850f7dc43910ff890f8879c0ed26fe697c93a067ad93a7d50f466a7028a9bf4e"],
  ])("matches the published vector for %#", (input, expected) => {
    expect(sha256Hex(input)).toBe(expected);
  });

  it("agrees with WebCrypto around every padding boundary and on multi-byte text", async () => {
    const inputs = [
      ...[55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129].map((n) => "x".repeat(n)),
      "日本語のテキスト • “quoted” — 🎉🎉",
      "\u0000\u00ff\n\t",
    ];
    for (const input of inputs)
      expect(sha256Hex(input), JSON.stringify(input)).toBe(await webCryptoHex(input));
  });
});

describe("normalizeText", () => {
  it("lower-cases, trims and collapses whitespace", () => {
    expect(normalizeText("  Use   Redis\tfor\n\nCaching  ")).toBe("use redis for caching");
  });

  it("removes straight and curly quotes, single and double", () => {
    expect(normalizeText(`"Use" 'Redis' “for” ‘caching’ don't`)).toBe("use redis for caching dont");
  });

  it.each(["- ", "* ", "• ", "1. ", "12. "])("strips the leading bullet %j", (bullet) => {
    expect(normalizeText(`${bullet}Use Redis`)).toBe("use redis");
  });

  it("keeps a bullet-like character that is not a leading list marker", () => {
    expect(normalizeText("Rate - limit at 3.5 rps")).toBe("rate - limit at 3.5 rps");
    expect(normalizeText("3.5 GB cap")).toBe("3.5 gb cap");
  });

  it("applies Unicode NFC, so composed and decomposed accents are equal", () => {
    expect(normalizeText("Cafe\u0301")).toBe("caf\u00e9");
  });
});

describe("computeUid", () => {
  it("is prefix + the first 12 hex chars of sha256(type:normalized text)", () => {
    // sha256("decision:use redis for caching"), computed with node:crypto.
    expect(computeUid("decision", "Use Redis for caching")).toBe("d_c93ad1db7fb2");
  });

  it("is deterministic and insensitive to formatting differences", () => {
    const a = computeUid("action", "- Run migration 025");
    expect(computeUid("action", "  run   MIGRATION “025” ")).toBe(a);
    expect(computeUid("action", "Run migration 026")).not.toBe(a);
  });

  it.each([
    ["decision", "d_"],
    ["constraint", "c_"],
    ["action", "a_"],
    ["question", "q_"],
    ["risk", "r_"],
  ] as const)("uses the %s prefix", (type, prefix) => {
    expect(computeUid(type, "same text")).toMatch(new RegExp(`^${prefix}[0-9a-f]{12}$`));
  });

  it("hashes the type too, so the same text under two types differs beyond the prefix", () => {
    expect(computeUid("decision", "x").slice(2)).not.toBe(computeUid("risk", "x").slice(2));
  });
});

describe("resolveStatusMerge", () => {
  it.each([
    ["action", "open", "blocked", "blocked"],
    ["action", "blocked", "done", "done"],
    ["action", "done", "open", "done"],
    ["action", "done", "superseded", "superseded"],
    ["question", "open", "answered", "answered"],
    ["question", "answered", "superseded", "superseded"],
    ["decision", "active", "superseded", "superseded"],
    ["constraint", "superseded", "active", "superseded"],
    ["risk", "active", "active", "active"],
  ] as const)("%s: %s + %s = %s", (type, a, b, expected) => {
    expect(resolveStatusMerge(type, a, b)).toBe(expected);
    expect(resolveStatusMerge(type, b, a)).toBe(expected);
  });

  it("never lets an invalid status win, and falls back to the default when both are invalid", () => {
    expect(resolveStatusMerge("action", "open", "done-ish")).toBe("open");
    expect(resolveStatusMerge("decision", "answered", "active")).toBe("active");
    expect(resolveStatusMerge("question", "bogus", "nope")).toBe("open");
  });
});

const valid = {
  type_tag: "decision",
  text: "Use Redis for caching",
  status: "active",
  confidence: "high",
  topic_tags: ["caching"],
  refs: ["m1"],
  supersedes: null,
  conflict: false,
};

describe("validateItem", () => {
  it("accepts a well-formed item unchanged and fills scope defaults", () => {
    const { item, errors } = validateItem(valid);
    expect(errors).toEqual([]);
    expect(item).toEqual({
      ...valid,
      scope: "global",
      scope_id: null,
      classification: "public",
      allow_roles: [],
    });
  });

  it.each([
    ["action", "open"],
    ["question", "open"],
    ["decision", "active"],
    ["constraint", "active"],
    ["risk", "active"],
  ] as const)("coerces an invalid %s status to %s and lowers confidence", (type, expected) => {
    expect(DEFAULT_STATUS[type as StateItemType]).toBe(expected);
    const { item, errors } = validateItem({ ...valid, type_tag: type, status: "wip" });
    expect(item?.status).toBe(expected);
    expect(item?.confidence).toBe("low");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("status");
  });

  it("rejects a status valid only for another type", () => {
    const { item } = validateItem({ ...valid, status: "done" });
    expect(item?.status).toBe("active");
    expect(item?.confidence).toBe("low");
  });

  it.each([
    ["unknown type", { ...valid, type_tag: "fact" }, "type_tag"],
    ["missing type", { ...valid, type_tag: undefined }, "type_tag"],
    ["empty text", { ...valid, text: "   " }, "text"],
    ["non-string text", { ...valid, text: 42 }, "text"],
    ["refs not an array", { ...valid, refs: "m1" }, "refs"],
    ["not an object", ["decision"], "item"],
  ])("returns no item for %s", (_name, candidate, field) => {
    const { item, errors } = validateItem(candidate);
    expect(item).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.startsWith(field)).toBe(true);
  });

  it("truncates more than 3 topic tags to the first 3 and records an error", () => {
    const { item, errors } = validateItem({ ...valid, topic_tags: ["A", "b", "c", "d"] });
    expect(item?.topic_tags).toEqual(["a", "b", "c"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("topic_tags");
  });

  it("drops non-string and empty refs with an error but keeps the item", () => {
    const { item, errors } = validateItem({ ...valid, refs: ["m1", 7, "", "m2", "m1"] });
    expect(item?.refs).toEqual(["m1", "m2"]);
    expect(errors).toHaveLength(1);
  });

  it("sets low confidence for an unknown confidence value", () => {
    const { item, errors } = validateItem({ ...valid, confidence: "certain" });
    expect(item?.confidence).toBe("low");
    expect(errors).toHaveLength(1);
  });
});

describe("supersession triggers", () => {
  it("is exactly the seed's list, without actually/correction", () => {
    expect([...SUPERSESSION_TRIGGERS]).toEqual([
      "instead",
      "replaced",
      "switched",
      "changed to",
      "no longer",
    ]);
  });

  it.each([
    ["Use Memcached instead of Redis", "instead"],
    ["Redis was replaced by Memcached", "replaced"],
    ["We switched to Memcached", "switched"],
    ["The cache has changed   to Memcached", "changed to"],
    ["We NO LONGER use Redis", "no longer"],
    ["“Instead,” go with Memcached", "instead"],
  ])("finds the trigger in %j", (text, trigger) => {
    expect(hasSupersessionSignal(text)).toBe(trigger);
  });

  it.each([
    "Actually, use Redis for caching",
    "Correction: the cache is Redis",
    "Use Redis for caching",
    "insteadof is a keyword here",
    "the replacement part is ordered",
    "we switch often",
    "the doc changed today",
    "longer timeouts are fine",
  ])("finds none in %j", (text) => {
    expect(hasSupersessionSignal(text)).toBeNull();
  });
});

describe("replacement verbs", () => {
  it("is exactly the seed's list", () => {
    expect([...REPLACEMENT_VERBS]).toEqual(["use", "choose", "switch", "go with", "adopt"]);
  });

  it.each([
    ["We use Postgres", "use"],
    ["The team uses Postgres", "use"],
    ["Using Postgres now", "use"],
    ["We used Postgres", "use"],
    ["We chose Postgres", "choose"],
    ["Postgres was chosen", "choose"],
    ["Choosing Postgres", "choose"],
    ["Switching to Postgres", "switch"],
    ["Switched to Postgres", "switch"],
    ["We are going with Postgres", "go with"],
    ["We went  with Postgres", "go with"],
    ["Adopting Postgres", "adopt"],
    ["Postgres adopted", "adopt"],
  ])("finds the verb in %j", (text, verb) => {
    expect(hasReplacementVerb(text)).toBe(verb);
  });

  it.each([
    "Postgres instead of MySQL",
    "the user asked about it",
    "reused connections",
    "a useful choice",
    "go home with it",
    "adoption is slow",
  ])("finds none in %j", (text) => {
    expect(hasReplacementVerb(text)).toBeNull();
  });
});
