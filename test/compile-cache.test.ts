import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { CompileCache, MESSAGE_OBJECT_LIMIT, OBJECT_LIMIT } from "../src/compiler/cache/compile-cache";
import { compileContext } from "../src/compiler/compile";
import type { CompileInput } from "../src/compiler/compile-input";
import type { MessageRecord } from "../src/compiler/types";
import type { FactVersion } from "../src/domain/fact-version";
import { compileInput, factRow, origin, stateItemRecord, userTurn } from "./support/context-objects";

const row = (id: string, key: string, value: string, extra: Partial<FactVersion> = {}) => {
  const content = `${key}: ${value}`;
  return factRow({
    id,
    key,
    valueJson: JSON.stringify(value),
    content,
    tokens: countTokens(content),
    ...extra,
  });
};

const message = userTurn;
/** A turn of someone else in the thread: what it restates is weighed as any text but the caller's own. */
const assistantTurn = (id: string, ts: string, content: string): MessageRecord => {
  const line = `[${ts}] assistant: ${content}`;
  return { id, ts, role: "assistant", speaker: null, content, line, tokens: countTokens(line) };
};

const item = stateItemRecord;

const base: CompileInput = compileInput();

/** Each step as storage would return it: fresh records, some of them changed since the last step. */
/** The step after which f9 and m3 are gated as not permitted. */
const GATED_STEP = 5;
const steps: Partial<CompileInput>[] = [
  {
    facts: [row("f1", "budget", "$50,000 approved by finance"), row("f2", "region", "EU only")],
    items: [item("i1", "The budget is $50,000 approved by finance")],
    messages: [message("m1", "2025-01-02T00:00:00.000Z", "The budget is $50,000 approved by finance")],
  },
  {
    query: "where do we deploy?",
    facts: [row("f1", "budget", "$50,000 approved by finance"), row("f2", "region", "EU only")],
    items: [item("i1", "The budget is $50,000 approved by finance")],
    messages: [message("m1", "2025-01-02T00:00:00.000Z", "The budget is $50,000 approved by finance")],
  },
  {
    // f1 is superseded in place (same id, new version of its row) and f3 replaces it.
    facts: [
      row("f1", "budget", "$50,000 approved by finance", {
        isValid: false,
        txEnd: "2025-03-01T00:00:00.000Z",
        supersededBy: "f3",
      }),
      row("f2", "region", "EU only"),
      row("f3", "budget", "$80,000 after the review", { validFrom: "2025-03-01T00:00:00.000Z" }),
    ],
    items: [item("i1", "The budget is $50,000 approved by finance", { status: "superseded" })],
    messages: [
      message("m1", "2025-01-02T00:00:00.000Z", "The budget is $50,000 approved by finance"),
      message("m2", "2025-03-02T00:00:00.000Z", "So $50,000 approved by finance is gone, we now have more"),
    ],
  },
  {
    // The same records, but the caller's roles and the clock differ: gates and settlement change.
    requestRoles: ["engineer"],
    now: "2025-07-01T00:00:00.000Z",
    facts: [row("f2", "region", "EU only", { validUntil: "2025-06-15T00:00:00.000Z" })],
    statedClaims: new Map([
      ["m1", { ts: "2025-01-02T00:00:00.000Z", claims: [{ key: "budget", value: "$50,000" }] }],
    ]),
  },
  {
    // Only the reason f9 is gated changes between these two steps (not yet valid, then not permitted),
    // and with it whether the message quoting it speaks from a dead state.
    requestRoles: undefined,
    facts: [
      row("f9", "codename", "Bluebird Falcon Seven", {
        classification: "confidential",
        validFrom: "2026-01-01T00:00:00.000Z",
      }),
    ],
    messages: [
      assistantTurn("m3", "2025-06-02T00:00:00.000Z", "Noted: the codename is Bluebird Falcon Seven"),
    ],
    statedClaims: new Map(),
  },
  { requestRoles: ["engineer"] },
  {
    // Back to the budget story, with an item that restates the replaced budget.
    requestRoles: undefined,
    now: "2025-04-01T00:00:00.000Z",
    facts: [
      row("f1", "budget", "$50,000 approved by finance", {
        isValid: false,
        txEnd: "2025-03-01T00:00:00.000Z",
        supersededBy: "f3",
      }),
      row("f2", "region", "EU only"),
      row("f3", "budget", "$80,000 after the review", { validFrom: "2025-03-01T00:00:00.000Z" }),
    ],
    items: [item("i2", "We still plan around $50,000 approved by finance")],
    statedClaims: new Map(),
  },
  {
    // A new turn adds items only: the facts' settlement stands, the items' is redone.
    items: [
      item("i2", "We still plan around $50,000 approved by finance"),
      item("i3", "Ship the EU rollout first"),
    ],
  },
  {
    // Then a fact changes while the items and every gate stay: the facts' settlement is redone.
    facts: [
      row("f1", "budget", "$50,000 approved by finance", {
        isValid: false,
        txEnd: "2025-03-01T00:00:00.000Z",
        supersededBy: "f3",
      }),
      row("f2", "region", "EU and UK"),
      row("f3", "budget", "$80,000 after the review", { validFrom: "2025-03-01T00:00:00.000Z" }),
    ],
  },
  {
    // Items-only turns that change the dead claims. A message from before the replacement states the
    // old figure (it speaks from a dead state while $50,000 is a dead figure); an item from after it
    // restates the old value itself, which is then live again.
    messages: [message("m7", "2025-02-01T00:00:00.000Z", "Finance asked for $50,000 for the team")],
    items: [
      item("i2", "We still plan around $50,000 approved by finance"),
      item("i4", "$50,000 approved by finance", {
        created_at: "2025-03-05T00:00:00.000Z",
        last_seen_at: "2025-03-05T00:00:00.000Z",
      }),
    ],
  },
  {
    // Only an item stating the old figure in its own words: the claim stays dead, its figure does not.
    items: [
      item("i2", "We still plan around $50,000 approved by finance"),
      item("i5", "We keep $50,000 in reserve for hiring", {
        created_at: "2025-03-05T00:00:00.000Z",
        last_seen_at: "2025-03-05T00:00:00.000Z",
      }),
    ],
  },
  {
    // An item from before the replacement restating the old value: it leaves, and its claim is dead.
    items: [
      item("i2", "We still plan around $50,000 approved by finance"),
      item("i6", "Approved: $50,000 approved by finance", {
        created_at: "2025-01-05T00:00:00.000Z",
        last_seen_at: "2025-01-05T00:00:00.000Z",
      }),
    ],
  },
  { items: [item("i2", "We still plan around $50,000 approved by finance")] },
  {
    items: [
      item("i2", "We still plan around $50,000 approved by finance"),
      item("i5", "We keep $50,000 in reserve for hiring", {
        created_at: "2025-03-05T00:00:00.000Z",
        last_seen_at: "2025-03-05T00:00:00.000Z",
      }),
    ],
  },
];

/**
 * Stored state that stays the same while each query retrieves other episodes, with other stated claims:
 * b1 is replaced by b2, the item from m1 (which stated the old budget) and m4 (its acknowledgement)
 * is outdated, and m5 retires the old launch date that m6 quotes.
 */
const budgetFacts = () => [
  row("b1", "budget", "$50,000 approved by finance", {
    isValid: false,
    txEnd: "2025-03-01T00:00:00.000Z",
    supersededBy: "b2",
  }),
  row("b2", "budget", "$80,000 after the review", { validFrom: "2025-03-01T00:00:00.000Z" }),
];
const episode = (id: string, ts: string, content: string, score: number) => ({
  ...message(id, ts, content),
  score,
});
const oldBudget = { ts: "2025-01-02T00:00:00.000Z", claims: [{ key: "budget", value: "$50,000" }] };
const retiredLaunch = { ts: "2025-04-01T00:00:00.000Z", claims: [], retired: ["launch on March 15th"] };
const m4 = episode("m4", "2025-01-03T00:00:00.000Z", "Yes, agreed, that works for the whole team", 0.9);
const m5 = episode("m5", "2025-04-01T00:00:00.000Z", "We will no longer launch on March 15th, it moves", 0.5);
const m6 = episode(
  "m6",
  "2025-04-02T00:00:00.000Z",
  "Reminder for all: launch on March 15th and dinner later",
  0.7,
);
const queries: Partial<CompileInput>[] = [
  { query: "what did the team agree?", episodes: [m4], statedClaims: new Map([["m1", oldBudget]]) },
  {
    query: "when is the launch?",
    episodes: [m6, m5],
    statedClaims: new Map([
      ["m5", retiredLaunch],
      ["m1", oldBudget],
    ]),
  },
  { query: "launch reminders", episodes: [m6], statedClaims: new Map([["m1", oldBudget]]) },
  { query: "what did the team agree?", episodes: [m4, m6], statedClaims: new Map([["m1", oldBudget]]) },
];

describe("CompileCache", () => {
  it("gives the same envelope as an uncached compile when only the retrieved episodes change", () => {
    const cache = new CompileCache();
    const state: CompileInput = {
      ...base,
      budgetTokens: 800,
      facts: budgetFacts(),
      items: [item("i1", "Go with the finance budget as agreed", { refs: ["m1", "m4"] })],
    };
    const envelopes = queries.map((query) => {
      const input = { ...state, ...query };
      const uncached = compileContext(input);
      const cached = compileContext({
        ...input,
        facts: budgetFacts(),
        items: structuredClone(input.items),
        cache,
      });
      expect(cached).toEqual(uncached);
      return cached;
    });
    const reasons = (envelope: ReturnType<typeof compileContext>) =>
      envelope.trace.omitted.map((o) => `${o.object_id} ${o.reason}`);
    // The acknowledgement is outdated with the message it answered, whatever else was retrieved.
    expect(reasons(envelopes[0] as ReturnType<typeof compileContext>)).toContain("m4 superseded");
    expect(reasons(envelopes[3] as ReturnType<typeof compileContext>)).toContain("m4 superseded");
    // The launch date is dead only while the message that retired it is among the stated claims.
    expect(envelopes[1]?.context).not.toContain("launch on March 15th and dinner");
    expect(envelopes[2]?.context).toContain("launch on March 15th and dinner");
  });

  it("reuses an object while its record is unchanged, and rebuilds it when the record changes", () => {
    const cache = new CompileCache();
    cache.begin(origin);
    const first = cache.fact(row("f1", "budget", "$50,000"), origin);
    expect(cache.fact(row("f1", "budget", "$50,000"), origin)).toBe(first);

    const superseded = cache.fact(
      row("f1", "budget", "$50,000", { txEnd: "2025-02-01T00:00:00.000Z" }),
      origin,
    );
    expect(superseded).not.toBe(first);
    expect(superseded.isValid).toBe(false);

    const record = item("i1", "ship on Friday");
    const cached = cache.item(record, origin);
    // A record the caller mutates after handing it over does not leave a stale entry behind.
    record.item.refs.push("m9");
    const again = cache.item(record, origin);
    expect(again).not.toBe(cached);
    expect(again.refs).toEqual(["m1", "m9"]);
  });

  it("when its table is full, keeps the objects compiles hand in every time and lets go of the oldest others", () => {
    const cache = new CompileCache();
    cache.begin(origin);
    // A large project: the newest versions come back every compile, the question's own ones are new.
    const newest = Array.from({ length: 500 }, (_, i) => row(`n${i}`, `newest_${i}`, `value ${i}`));
    const held = newest.map((r) => cache.fact(r, origin));
    const first = cache.fact(row("q0-0", "asked_0_0", "an answer"), origin);
    for (let compile = 1; compile <= 30; compile++) {
      cache.begin(origin);
      for (const r of newest) cache.fact(r, origin);
      for (let i = 0; i < 500; i++)
        cache.fact(row(`q${compile}-${i}`, `asked_${compile}_${i}`, "an answer"), origin);
      expect(cache.size).toBeLessThanOrEqual(OBJECT_LIMIT);
    }
    cache.begin(origin);
    // The very same objects, so every memo kept by object stays with them.
    expect(newest.filter((r, i) => cache.fact(r, origin) !== held[i])).toEqual([]);
    // The oldest question's object was let go: made again, equal but new.
    const again = cache.fact(row("q0-0", "asked_0_0", "an answer"), origin);
    expect(again).not.toBe(first);
    expect(again).toStrictEqual(first);
  });

  it("keeps fewer message objects than fact objects: the tail's, and the newest questions' turns", () => {
    const cache = new CompileCache();
    const at = (n: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString();
    // A long thread: the tail comes back every compile, each new question retrieves turns of its own.
    const tail = Array.from({ length: 40 }, (_, i) => message(`t${i}`, at(200_000 + i), `recent turn ${i}`));
    cache.begin(origin);
    const held = tail.map((m) => cache.message(m, origin));
    const first = cache.message(message("r0-0", at(0), "an old turn"), origin);
    for (let compile = 1; compile <= 40; compile++) {
      cache.begin(origin);
      for (const m of tail) cache.message(m, origin);
      for (let i = 0; i < 300; i++)
        cache.message(message(`r${compile}-${i}`, at(compile * 1000 + i), "an old turn"), origin);
      expect(cache.size).toBeLessThanOrEqual(MESSAGE_OBJECT_LIMIT);
    }
    // 40 compiles of 300 turns each passed the limit: it let go of old ones, down to three quarters.
    expect(cache.size).toBeGreaterThan((MESSAGE_OBJECT_LIMIT * 3) / 4 - 1);
    cache.begin(origin);
    expect(tail.filter((m, i) => cache.message(m, origin) !== held[i])).toEqual([]);
    expect(cache.message(message("r0-0", at(0), "an old turn"), origin)).not.toBe(first);
  });

  it("holds every object of a compile that hands in more than its limit, for the next compile to reuse", () => {
    const cache = new CompileCache();
    // A thread whose lists alone pass the limit (a working set with a long history, say).
    const rows = Array.from({ length: OBJECT_LIMIT + 500 }, (_, i) =>
      row(`v${i}`, `step_${i}`, `value ${i}`),
    );
    cache.begin(origin);
    const made = rows.map((r) => cache.fact(r, origin));
    expect(cache.size).toBe(rows.length);
    // The same lists again, and again with one more version: every object is the one made before.
    cache.begin(origin);
    expect(rows.filter((r, i) => cache.fact(r, origin) !== made[i])).toEqual([]);
    cache.begin(origin);
    for (const [i, r] of rows.entries()) expect(cache.fact(r, origin)).toBe(made[i]);
    cache.fact(row("v-new", "step_new", "value new"), origin);
    // A compile that hands in fewer lets the others go again, down to the limit's three quarters.
    cache.begin(origin);
    for (const r of rows.slice(0, 100)) cache.fact(r, origin);
    cache.fact(row("v-other", "step_other", "value other"), origin);
    expect(cache.size).toBeLessThanOrEqual(OBJECT_LIMIT);
  });

  it("takes a deeply frozen record handed in again as unchanged, but not one frozen only on the outside", () => {
    const cache = new CompileCache();
    cache.begin(origin);
    const frozen = Object.freeze(row("f1", "budget", "$50,000"));
    const first = cache.fact(frozen, origin);
    expect(cache.fact(frozen, origin)).toBe(first);
    // An equal record in a new object is compared, and is still the same version.
    expect(cache.fact(row("f1", "budget", "$50,000"), origin)).toBe(first);

    const record = item("i1", "ship on Friday");
    const shallow = Object.freeze({ ...record });
    const cached = cache.item(shallow, origin);
    expect(cache.item(shallow, origin)).toBe(cached);
    // Its item is not frozen, so it may change under the same outer object; the cache must see it.
    shallow.item.refs.push("m9");
    const again = cache.item(shallow, origin);
    expect(again).not.toBe(cached);
    expect(again.refs).toEqual(["m1", "m9"]);
  });

  it("hands back last compile's list for the same frozen records, and resolves again when one changed", () => {
    const cache = new CompileCache();
    cache.begin(origin);
    const resolve = (r: FactVersion) => cache.fact(r, origin);
    const a = Object.freeze(row("f1", "budget", "$50,000"));
    const b = Object.freeze(row("f2", "owner", "Ada"));
    const first = cache.resolvedList("fact", [a, b], resolve);
    expect(cache.resolvedList("fact", [a, b], resolve)).toBe(first);

    // A superseded version of f2 under the same id: a new record object, so it is resolved again.
    const closed = Object.freeze(row("f2", "owner", "Ada", { txEnd: "2025-02-01T00:00:00.000Z" }));
    const second = cache.resolvedList("fact", [a, closed], resolve);
    expect(second).not.toBe(first);
    expect(second[0]).toBe(first[0]);
    expect(second[1]?.isValid).toBe(false);

    // Records that are not frozen may have changed in place, so they are always looked at.
    const open = row("f3", "region", "eu-west-1");
    const third = cache.resolvedList("fact", [a, open], resolve);
    open.txEnd = "2025-03-01T00:00:00.000Z";
    const fourth = cache.resolvedList("fact", [a, open], resolve);
    expect(fourth).not.toBe(third);
    expect(fourth[1]?.isValid).toBe(false);
  });

  it("keeps a list while it holds the same objects, and splits it by standing gates per caller", () => {
    const cache = new CompileCache();
    cache.begin(origin);
    const a = cache.fact(row("f1", "budget", "$50,000"), origin);
    const b = cache.fact(row("f2", "owner", "Ada"), origin);
    const first = cache.sameList("fact", [a, b]);
    expect(cache.sameList("fact", [a, b])).toBe(first);
    // Another object, another order or another length is a new list.
    const changed = cache.fact(row("f2", "owner", "Bob"), origin);
    expect(cache.sameList("fact", [a, changed])).not.toBe(first);
    expect(cache.sameList("fact", [a, changed])).toEqual([a, changed]);
    expect(cache.sameList("fact", [changed, a])).toEqual([changed, a]);
    expect(cache.sameList("fact", [a])).toEqual([a]);

    const list = cache.sameList("fact", [a, b]);
    const split = (open: string[]) => () => ({
      open: list.filter((o) => open.includes(o.objectId)),
      held: list
        .filter((o) => !open.includes(o.objectId))
        .map((object) => ({ object, reason: "superseded" as const })),
    });
    const asAda = cache.standingSplit("ada", list, split(["f1", "f2"]));
    expect(cache.standingSplit("ada", list, split([]))).toBe(asAda);
    // Another caller is split afresh, and so is another list for the same caller.
    expect(cache.standingSplit("bob", list, split(["f1"])).open).toEqual([a]);
    expect(cache.standingSplit("bob", [b, a], split([])).open).toEqual([]);
  });

  it("forgets its objects when the thread's origin changes", () => {
    const cache = new CompileCache();
    cache.begin(origin);
    const first = cache.fact(row("f1", "budget", "$50,000", { authorityRank: 5 }), origin);
    const wider = { ...origin, topRank: 10 };
    cache.begin(wider);
    const second = cache.fact(row("f1", "budget", "$50,000", { authorityRank: 5 }), wider);
    expect(second).not.toBe(first);
    expect(second.sourceAuthority).toBe(0.5);
  });

  it("gives the same envelope as an uncached compile at every step of a changing thread", () => {
    const cache = new CompileCache();
    let input = base;
    let gatedStep = base;
    const m7Left: boolean[] = [];
    for (const [index, step] of steps.entries()) {
      input = { ...input, ...step };
      if (index === GATED_STEP) gatedStep = input;
      const uncached = compileContext(input);
      const reloaded = {
        facts: structuredClone(input.facts),
        items: structuredClone(input.items),
        messages: structuredClone(input.messages),
      };
      const cached = compileContext({ ...input, ...reloaded, cache });
      expect(cached).toEqual(uncached);
      m7Left.push(uncached.trace.omitted.some((o) => o.object_id === "m7"));
    }
    // The items-only turns at the end do change what is dead: m7 stays while a live item states its
    // $50,000 (in the old claim's words or its own) and leaves while none does.
    expect(m7Left.slice(-5)).toEqual([false, false, true, true, false]);
    const reasons = (envelope: ReturnType<typeof compileContext>) =>
      envelope.trace.omitted.map((o) => `${o.object_id} ${o.reason}`);
    expect(reasons(compileContext({ ...gatedStep, cache }))).toEqual(
      expect.arrayContaining(["f9 not_permitted", "m3 not_permitted"]),
    );
    // The supersession of step 3 shows through the cache: the old value is gone, the new one is there.
    const third = compileContext({ ...base, ...steps[0], ...steps[2], cache });
    expect(third.context).toContain("$80,000");
    expect(third.context).not.toMatch(/budget: \$50,000/);
    expect(third.trace.omitted.find((o) => o.object_id === "f1")?.reason).toBe("superseded");
  });

  it("gives the same envelope as an uncached compile while written facts change how slots settle", () => {
    const signal = (id: string, key: string, value: string, ts: string) => {
      const content = `${key}: ${value}`;
      return {
        id,
        key,
        valueJson: JSON.stringify(value),
        content,
        tokens: countTokens(content),
        ts,
        expiresAt: null,
        scope: "global",
        scopeId: null,
        classification: "public",
        allowRolesJson: "[]",
        denyRolesJson: "[]",
        replacedBy: null,
      };
    };
    const a1 = row("a1", "budget", "$50,000 approved by finance", { validFrom: "2025-01-01T00:00:00.000Z" });
    const a2 = row("a2", "region", "EU only", { validFrom: "2025-01-01T00:00:00.000Z" });
    const a3 = row("a3", "budget", "$80,000 after the review", { validFrom: "2025-03-01T00:00:00.000Z" });
    const a4 = row("a4", "region", "EU and UK", { validFrom: "2025-01-01T00:00:00.000Z", authorityRank: 4 });
    const a5 = row("a5", "budget", "$90,000 from the board", { validFrom: "2025-03-01T00:00:00.000Z" });
    const a6 = row("a6", "budget", "$70,000 per the CFO", { validFrom: "2025-02-01T00:00:00.000Z" });
    const s1 = signal("s1", "vendor", "VendorX contract signed", "2025-01-01T00:00:00.000Z");
    const s2 = signal("s2", "vendor_status", "VendorX contract paused", "2025-02-01T00:00:00.000Z");
    const s3 = signal("s3", "vendor_news", "VendorX contract renewed", "2025-03-01T00:00:00.000Z");
    // Each step writes facts (newest first, as storage returns them) or signals, as a turn would.
    const writes: Partial<CompileInput>[] = [
      { facts: [a2, a1], environmentFacts: [s1, s2] },
      // A later budget: the slot settles by valid time, the region's slot stays as it was.
      { facts: [a3, a2, a1] },
      // As many budgets, but another one replaces the old budget now.
      { facts: [a6, a2, a1] },
      // A region from a more trusted source disputes the one there.
      { facts: [a4, a3, a2, a1] },
      // A second budget from the same time and source: the two quarantine each other.
      { facts: [a5, a4, a3, a2, a1] },
      // The oldest budget and the rival leave: the budget's slot holds one claim again.
      { facts: [a4, a3, a2] },
      // A newer signal about VendorX: the one before it is stale now.
      { environmentFacts: [s1, s2, s3] },
      { query: "who is the vendor?" },
    ];
    const cache = new CompileCache();
    let input: CompileInput = { ...base, budgetTokens: 800 };
    const settled: string[][] = [];
    for (const write of writes) {
      input = { ...input, ...write };
      const uncached = compileContext(input);
      const cached = compileContext({
        ...input,
        facts: structuredClone(input.facts),
        environmentFacts: structuredClone(input.environmentFacts),
        cache,
      });
      expect(cached).toEqual(uncached);
      settled.push([
        ...uncached.trace.omitted
          .filter((o) => /^[as]\d$/.test(o.object_id))
          .map((o) => `${o.object_id} ${o.reason}`),
        ...uncached.trace.quarantined.map((q) => `${q.object_id} quarantined`),
      ]);
    }
    // Every write changed how some slot settled, and the cache followed each one.
    expect(settled).toEqual([
      ["s1 superseded"],
      ["s1 superseded", "a1 superseded"],
      ["s1 superseded", "a1 superseded"],
      ["s1 superseded", "a2 disputed", "a1 superseded"],
      ["s1 superseded", "a1 superseded", "a2 disputed", "a5 quarantined", "a3 quarantined"],
      ["s1 superseded", "a2 disputed"],
      ["s2 superseded", "s1 superseded", "a2 disputed"],
      ["s2 superseded", "s1 superseded", "a2 disputed"],
    ]);
  });
});
