import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import { compileContext } from "../src/compiler/compile";
import { dedupe, ladderStep, phrase, sharedClaims } from "../src/compiler/passes/compress";
import { emit } from "../src/compiler/passes/emit";
import { factObject, messageObject } from "../src/compiler/passes/normalize";
import { SECTION_ORDER } from "../src/compiler/passes/order";
import { type PackInput, pack } from "../src/compiler/passes/pack";
import {
  activation,
  objectScore,
  type Ranked,
  rankGroup,
  splitByTrust,
  tiers,
} from "../src/compiler/passes/rank";
import { identifiersIn, resolveEntities } from "../src/compiler/passes/resolve-entities";
import { checkTemporal } from "../src/compiler/passes/temporal/check-temporal";
import { reconcileSlot } from "../src/compiler/passes/temporal/slot-reconciliation";
import { detailForms, truncateToTokens } from "../src/detail-forms/detail-forms";
import { compileInput, factRow, contextObject as object } from "./support/context-objects";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

const origin = { tenantId: "t", projectId: "p", threadId: "th", topRank: 5, user: { id: "u1", name: null } };
const NOW = "2025-06-01T00:00:00.000Z";

/** Pass 7 with only the lists a test names; the rest empty, the whole budget open to facts. */
const packOnly = (over: Partial<PackInput> & Pick<PackInput, "budgetTokens" | "count">) =>
  pack({
    factsShare: 1,
    fixedTokens: 0,
    rules: [],
    environment: [],
    items: [],
    working: [],
    facts: [],
    retrieved: [],
    episodes: [],
    retrieval: new Map(),
    messages: [],
    background: [],
    threadId: "t1",
    queryTerms: [],
    dead: [],
    ...over,
    memos,
  });

const ranked = (o: ReturnType<typeof object>, tier: Ranked["tier"] = "important", relevance = 1): Ranked => ({
  object: o,
  tier,
  relevance,
  score: 1,
});

describe("pass 1: normalize", () => {
  it("places facts on seed 001's authority scale and keeps client-stated Context Object fields", () => {
    const policy = factObject(factRow({ sourceType: "policy", isConstraint: true }), origin);
    expect(policy).toMatchObject({ authorityLevel: 1, objectType: "policy_rule", sourceAuthority: 0.4 });
    const tool = factObject(factRow({ sourceType: "tool" }), origin);
    expect(tool).toMatchObject({ authorityLevel: 4, objectType: "retrieved_passage" });
    const derived = factObject(factRow({ needsReview: true }), origin);
    expect(derived).toMatchObject({ authorityLevel: 3, objectType: "inferred_belief" });
    const stated = factObject(
      factRow({
        contextJson: JSON.stringify({
          object_type: "preference",
          why_it_matters: "reviews of production code",
          applicable_task_types: ["code_generation"],
          confidence_score: 0.6,
          decay_rule: { half_life_days: 7, minimum_threshold: 0 },
        }),
      }),
      origin,
    );
    expect(stated).toMatchObject({
      objectType: "preference",
      whyItMatters: "reviews of production code",
      taskTypes: ["code_generation"],
      confidence: 0.6,
      decayHalfLifeDays: 7,
    });
  });

  it("reads a message's role as its authority", () => {
    const base = { id: "m1", ts: NOW, speaker: null, content: "x", line: "x", tokens: 1 };
    expect(messageObject({ ...base, role: "tool" }, origin)).toMatchObject({
      authorityLevel: 4,
      objectType: "retrieved_passage",
    });
    expect(messageObject({ ...base, role: "user" }, origin).authorityLevel).toBe(2);
    expect(messageObject({ ...base, role: "assistant" }, origin).authorityLevel).toBe(3);
  });
});

describe("pass 2: resolve entities", () => {
  it("names slots and distinctive identifiers, not ordinary capitalised words", () => {
    expect(
      identifiersIn("Update: TICKET-9999 breach. Build #1234 failed for VendorX. The Team agrees."),
    ).toEqual(["id:ticket-9999", "id:build#1234", "id:vendorx"]);
    // Each kind found on its own, in its looser spellings; a text with none names none.
    expect(identifiersIn("see ENG-4 first")).toEqual(["id:eng-4"]);
    expect(identifiersIn("release # 7 slipped")).toEqual(["id:release#7"]);
    expect(identifiersIn("ask OpenAI about it")).toEqual(["id:openai"]);
    expect(identifiersIn("Pay-2 the team at 5-6 PM, #general")).toEqual([]);
    const [resolved] = resolveEntities([object({ key: "Project Budget", claim: "no identifiers here" })]);
    expect(resolved?.entityIds).toEqual(["slot:project_budget"]);
  });
});

describe("pass 4: temporal validity and conflicts", () => {
  const claim = (id: string, value: string, extra = {}) =>
    object({ objectId: id, claim: value, validFrom: "2025-01-01T00:00:00.000Z", ...extra });

  it("lets higher authority override, then the later valid time, then the more trusted source", () => {
    const byAuthority = reconcileSlot("budget", [
      claim("user", "$60k", { authorityLevel: 2 }),
      claim("policy", "$50k", { authorityLevel: 1 }),
    ]);
    expect(byAuthority.displaced.map((d) => [d.object.objectId, d.reason])).toEqual([["user", "overridden"]]);

    const byTime = reconcileSlot("budget", [
      claim("old", "$50k"),
      claim("new", "$60k", { validFrom: "2025-02-01T00:00:00.000Z" }),
    ]);
    expect(byTime.displaced.map((d) => [d.object.objectId, d.reason])).toEqual([["old", "superseded"]]);

    const byTrust = reconcileSlot("budget", [
      claim("weak", "$50k", { confidence: 0.5 }),
      claim("strong", "$60k"),
    ]);
    expect(byTrust.displaced.map((d) => [d.object.objectId, d.reason])).toEqual([["weak", "disputed"]]);
  });

  it("quarantines a true contradiction instead of choosing", () => {
    const tie = reconcileSlot("budget", [claim("a", "$50k"), claim("b", "$60k")]);
    expect(tie.displaced).toEqual([]);
    expect(tie.quarantined.map((q) => [q.object.objectId, q.conflictsWith])).toEqual([
      ["a", ["b"]],
      ["b", ["a"]],
    ]);
    expect(reconcileSlot("budget", [claim("a", "$50k"), claim("b", "$50K ")]).quarantined).toEqual([]);
  });

  it("retires an older environment signal about the same entity and the messages that restate it", () => {
    const env = resolveEntities([
      object({
        objectId: "e1",
        kind: "environment",
        key: "deadline",
        claim: "TICKET-9 due in 4 hours",
        ts: "2025-01-01T10:00:00Z",
      }),
      object({
        objectId: "e2",
        kind: "environment",
        key: "alert",
        claim: "TICKET-9 breach in 15 minutes",
        ts: "2025-01-01T13:00:00Z",
      }),
    ]);
    const note = object({
      objectId: "m1",
      kind: "message",
      text: "[t] user: TICKET-9 due in 4 hours",
      ts: "2025-01-01T10:01:00Z",
    });
    const result = checkTemporal(
      { facts: [], working: [], environment: env, items: [], messages: [note], episodes: [] },
      [],
      new Map(),
      memos,
    );
    expect(result.environment.map((e) => e.objectId)).toEqual(["e2"]);
    expect(result.omitted.map((o) => [o.object.objectId, o.reason])).toEqual([
      ["e1", "superseded"],
      ["m1", "superseded"],
    ]);
  });

  it("retires an environment signal, under any key, that states a value the conversation replaced", () => {
    const signal = (id: string, text: string, ts: string) =>
      object({ objectId: id, kind: "environment", key: "system", text, claim: text, ts });
    const env = [
      signal("e1", "system: Scheduled deployment window is 2 AM - 4 AM tonight", "2025-01-01T10:00:00Z"),
      signal("e2", "system: Build #7 passed", "2025-01-01T10:00:00Z"),
    ];
    // The window fact stated with the signal was superseded when the window moved at 13:00.
    const old = object({ objectId: "f1", key: "window", claim: "2 AM - 4 AM tonight", supersededBy: "f2" });
    const current = object({
      objectId: "f2",
      key: "window",
      claim: "4 AM - 6 AM",
      validFrom: "2025-01-01T13:00:00Z",
    });
    const result = checkTemporal(
      { facts: [current], working: [], environment: env, items: [], messages: [], episodes: [] },
      [{ object: old, reason: "superseded" }],
      new Map(),
      memos,
    );
    expect(result.environment.map((e) => e.objectId)).toEqual(["e2"]);
    expect(result.omitted.find((o) => o.object.objectId === "e1")).toMatchObject({
      reason: "superseded",
      detail: "restates f1, since replaced",
    });

    // A signal issued after the replacement is the newer word, not a stale one.
    const later = signal("e3", "alert: window back to 2 AM - 4 AM tonight", "2025-01-01T14:00:00Z");
    const kept = checkTemporal(
      { facts: [current], working: [], environment: [later], items: [], messages: [], episodes: [] },
      [{ object: old, reason: "superseded" }],
      new Map(),
      memos,
    );
    expect(kept.environment.map((e) => e.objectId)).toEqual(["e3"]);
  });
});

describe("pass 5: rank and tier", () => {
  it("makes explicit constraints critical and leaves untouched working notes irrelevant", () => {
    const { ranked: r, omitted } = rankGroup(
      [
        object({ objectId: "c", isConstraint: true, text: "no weekend deploys" }),
        object({ objectId: "w", kind: "working", text: "lunch order" }),
        object({ objectId: "b", text: "budget: $50k" }),
      ],
      { query: "what is the budget", now: NOW, memos },
      tiers.working,
    );
    expect(r.map((x) => [x.object.objectId, x.tier])).toEqual([
      ["c", "critical"],
      ["b", "important"],
    ]);
    expect(omitted.map((o) => [o.object.objectId, o.tier])).toEqual([["w", "irrelevant"]]);
  });

  it("fuses BM25 with the vector index's nearest objects: a near object with no shared word is relevant", () => {
    const group = [
      object({ objectId: "k", text: "keynote_speaker: Dr. Okafor", ts: "2025-05-01T00:00:00Z" }),
      object({ objectId: "v", text: "venue: Hall B, speaker room 2", ts: "2025-05-01T00:00:00Z" }),
      object({ objectId: "c", text: "catering: Saffron Table", ts: "2025-05-01T00:00:00Z" }),
    ];
    const tier = (query: string, similar?: Map<string, number>) =>
      Object.fromEntries(
        rankGroup(group, { query, now: NOW, similar, memos }, tiers.facts).ranked.map((x) => [
          x.object.objectId,
          x.tier,
        ]),
      );
    // BM25 alone: the misspelled query shares no word with any object.
    expect(tier("who is the keynot speakr?")).toEqual({ k: "minimal", v: "minimal", c: "minimal" });
    // The vector index found k near the query; c below the cosine floor, and ids of other lists, do nothing.
    const similar = new Map([
      ["k", 0.46],
      ["c", 0.2],
      ["elsewhere", 0.9],
    ]);
    expect(tier("who is the keynot speakr?", similar)).toEqual({
      k: "important",
      v: "minimal",
      c: "minimal",
    });
    // Found by both retrievers beats found by one: v shares "room" with the query and is near it too.
    const both = rankGroup(
      group,
      {
        query: "keynot speakr room",
        now: NOW,
        memos,
        similar: new Map([
          ["v", 0.41],
          ["k", 0.46],
        ]),
      },
      tiers.facts,
    );
    expect(both.ranked.map((x) => [x.object.objectId, x.tier])).toEqual([
      ["v", "important"],
      ["k", "important"],
      ["c", "minimal"],
    ]);
  });

  it("scores a list it has indexed afresh for each query, and a new list by its own texts", () => {
    const group = [
      object({ objectId: "a", text: "budget: $50k" }),
      object({ objectId: "d", text: "deadline: Friday" }),
    ];
    const tiered = (list: typeof group, query: string) =>
      rankGroup(list, { query, now: NOW, memos }, tiers.working).ranked.map((x) => x.object.objectId);
    expect(tiered(group, "what is the budget")).toEqual(["a"]);
    // The same list (its index is remembered) against another query.
    expect(tiered(group, "when is the deadline")).toEqual(["d"]);
    // A list of the same length and ids whose texts differ is indexed by its own texts.
    const swapped = [
      object({ objectId: "a", text: "deadline: Monday" }),
      object({ objectId: "d", text: "budget: $20k" }),
    ];
    expect(tiered(swapped, "what is the budget")).toEqual(["d"]);
    expect(tiered(group, "what is the budget")).toEqual(["a"]);
  });

  it("splits a list by trust the same way each time, and a new list by its own objects", () => {
    const fact = object({ objectId: "f" });
    const retrieved = object({ objectId: "r", authorityLevel: 4 });
    const ids = (l: { objectId: string }[]) => l.map((o) => o.objectId);
    expect(ids(splitByTrust([fact, retrieved], memos).trusted)).toEqual(["f"]);
    const list = [fact, retrieved];
    expect(splitByTrust(list, memos)).toBe(splitByTrust(list, memos));
    expect(ids(splitByTrust([retrieved], memos).untrusted)).toEqual(["r"]);
    expect(ids(splitByTrust([retrieved], memos).trusted)).toEqual([]);
  });

  it("activates a preference only for its task types and a matching why_it_matters", () => {
    const preference = object({ taskTypes: ["code_generation"], whyItMatters: "production code reviews" });
    expect(activation(preference, "code_generation", true)).toBeUndefined();
    expect(activation(preference, "analytical_reporting", true)).toMatch(/code_generation/);
    expect(activation(preference, undefined, true)).toMatch(/unstated/);
    expect(activation(preference, "code_generation", false)).toMatch(/why_it_matters/);
  });

  it("prefers what matches, then what is recent", () => {
    const fresh = object({ ts: "2025-05-31T00:00:00.000Z" });
    const stale = object({ ts: "2024-06-01T00:00:00.000Z" });
    expect(objectScore(fresh, 0, NOW)).toBeGreaterThan(objectScore(stale, 0, NOW));
    expect(objectScore(stale, 1, NOW)).toBeGreaterThan(objectScore(fresh, 0, NOW));
  });
});

describe("pass 7: compress and convert", () => {
  it("collapses duplicate claims onto the first, strongest copy", () => {
    const a = object({ objectId: "fact", claim: "cancel VendorX by 5 PM today" });
    const b = object({ objectId: "item", kind: "state_item", claim: "Cancel VendorX by 5 PM today" });
    const { groups, omitted } = dedupe([[ranked(a)], [ranked(b)]], memos);
    expect(groups.map((g) => g.map((r) => r.object.objectId))).toEqual([["fact"], []]);
    expect(omitted[0]).toMatchObject({ reason: "duplicate", detail: "same claim as fact" });
  });

  it("finds the claims a settlement states twice, for each settlement afresh, and dedupes the same with them", () => {
    const a = object({ objectId: "fact", claim: "cancel VendorX by 5 PM today" });
    const b = object({ objectId: "item", kind: "state_item", claim: "Cancel  VendorX by 5 PM today" });
    const c = object({ objectId: "other", claim: "renew VendorY in March" });
    const state = { facts: [a, c], items: [b], working: [], environment: [] };
    expect([...sharedClaims(state, memos)].map((o) => o.objectId)).toEqual(["fact", "item"]);
    expect(sharedClaims(state, memos)).toBe(sharedClaims(state, memos));
    // Another settlement of the same objects, without the item, shares nothing.
    expect(sharedClaims({ ...state, items: [] }, memos).size).toBe(0);
    const groups = [[ranked(a), ranked(c)], [ranked(b)]];
    const withShared = dedupe(groups, memos, sharedClaims(state, memos));
    expect(withShared).toEqual(dedupe(groups, memos));
    expect(withShared.groups.map((g) => g.map((r) => r.object.objectId))).toEqual([["fact", "other"], []]);
  });

  it("turns constraints into directives only with authority and scope behind them", () => {
    const policy = object({ isConstraint: true, authorityLevel: 1, claim: "Never share salaries" });
    expect(ladderStep(ranked(policy, "critical"))).toBe("hard_constraint");
    expect(phrase("hard_constraint", policy, "rule: Never share salaries")).toBe(
      "DO NOT: rule: Never share salaries",
    );
    expect(phrase("hard_constraint", object({ claim: "cap at $500k" }), "cap: $500k")).toBe(
      "MUST: cap: $500k",
    );
    // A rule naming a pending entity (seed 001) is guidance, and says why.
    expect(ladderStep(ranked(policy, "critical"), true)).toBe("behavioral_guidance");
    expect(phrase("behavioral_guidance", policy, "rule: Never pay Dorn Ltd", ["Dorn Ltd"])).toBe(
      "SHOULD: rule: Never pay Dorn Ltd (pending entity review: Dorn Ltd)",
    );
    const session = object({ isConstraint: true, scope: "session" });
    expect(ladderStep(ranked(session, "critical"))).toBe("behavioral_guidance");
    expect(ladderStep(ranked(object({ kind: "message" }), "useful"))).toBe("raw_observation");
    expect(ladderStep(ranked(object({ kind: "environment" })))).toBe("task_context");
  });

  it("falls back to stored summary and micro forms when the full form does not fit", () => {
    const long = "The vendor review covered pricing, support terms, data residency and exit clauses. ".repeat(
      6,
    );
    const forms = detailForms(long, countTokens, "review: ");
    const o = object({
      objectId: "long",
      text: `review: ${long}`,
      tokens: countTokens(`review: ${long}`),
      forms,
    });
    const run = (budget: number) =>
      packOnly({ budgetTokens: budget, facts: [ranked(o)], count: countTokens }).placed.map((p) => p.detail);
    expect(run(400)).toEqual(["full"]);
    expect(run(forms.summaryTokens + 12)).toEqual(["summary"]);
    expect(run(forms.microTokens + 12)).toEqual(["micro"]);
    expect(run(4)).toEqual([]);
  });

  it("passes over background that cannot fit even at its cheapest level, placing exactly what it would without the bound", () => {
    const long = "The vendor review covered pricing, support terms, data residency and exit clauses. ".repeat(
      6,
    );
    const withForms = (id: string, text: string) =>
      object({ objectId: id, text, tokens: countTokens(text), forms: detailForms(text, countTokens, "") });
    const list = [
      withForms("long", long),
      withForms("mid", long.slice(0, 200)),
      object({
        objectId: "short",
        text: "Office closes at 6 PM",
        tokens: countTokens("Office closes at 6 PM"),
      }),
    ];
    const { ranked: background } = rankGroup(
      list,
      { query: "unrelated words", now: NOW, memos },
      tiers.facts,
    );
    const micro = (list[0]?.forms?.microTokens ?? 0) as number;
    expect(background.find((r) => r.object.objectId === "long")?.floor).toBe(micro);
    // Scores from the parts kept per list are objectScore's, to the bit.
    for (const r of background) expect(r.score).toBe(objectScore(r.object, 0, NOW));
    const run = (budget: number, rankedList: Ranked[]) =>
      packOnly({ budgetTokens: budget, background: rankedList, count: countTokens });
    const unbounded = background.map(({ floor: _, ...r }) => r);
    for (let budget = 0; budget <= 300; budget += 3) {
      expect(run(budget, background)).toEqual(run(budget, unbounded));
    }
    // Room for the long review's micro form only: placed at that level, not passed over.
    const placed = run(
      micro + 12,
      background.filter((r) => r.object.objectId === "long"),
    ).placed;
    expect(placed.map((p) => p.detail)).toEqual(["micro"]);
  });
});

describe("pass 7: background from other threads", () => {
  it("packs the thread's own background facts and state items before the facts other threads wrote", () => {
    const line = (id: string, text: string, extra: Partial<ReturnType<typeof object>> = {}) =>
      object({ objectId: id, key: id, text, tokens: countTokens(text), ...extra });
    // Other threads' facts are newer and score higher: on score alone they would take the room.
    const theirs = [1, 2, 3]
      .map((n) =>
        ranked(
          line(`theirs-${n}`, `Service ${n} runs in eu-west-2 on Kafka`, { sessionId: "t2" }),
          "minimal",
        ),
      )
      .map((r) => ({ ...r, score: 2 }));
    const own = ranked(line("own", "The working title is Shade Is Infrastructure"), "minimal");
    const item = ranked(
      line("item", "New security requirement: all auth must use MFA", { kind: "state_item" }),
      "minimal",
    );
    const cost = (r: Ranked) => r.object.tokens + 4;
    const budget = cost(own) + cost(item) + 20;
    const { placed } = packOnly({
      budgetTokens: budget,
      background: [...theirs, own, item],
      count: countTokens,
    });
    expect(placed.map((p) => p.object.objectId)).toEqual(["own", "item"]);
    // With room for all, every one is placed, the thread's own first.
    const all = packOnly({ budgetTokens: 1_000, background: [...theirs, own, item], count: countTokens });
    expect(all.placed.map((p) => p.object.objectId)).toEqual([
      "own",
      "item",
      "theirs-1",
      "theirs-2",
      "theirs-3",
    ]);
  });
});

describe("pass 7: date-grouped earlier conversation", () => {
  const said = (id: string, minute: number, content: string) => {
    const ts = `2023-05-08T10:${String(minute).padStart(2, "0")}:00.000Z`;
    const line = `[${ts}] Caroline (user): ${content}`;
    return messageObject(
      { id, ts, role: "user", speaker: "Caroline", content, line, tokens: countTokens(line) },
      origin,
    );
  };
  const episodes = [
    said("e1", 1, "I went to the LGBTQ support group yesterday and it was powerful."),
    said("e2", 2, "The transgender stories were so inspiring that I want to volunteer."),
  ];
  const run = (budget: number, count: (text: string) => number) =>
    packOnly({
      budgetTokens: budget,
      episodes: episodes.map((object, i) => ({
        object,
        tier: "useful" as const,
        relevance: 1,
        score: 2 - i,
      })),
      count,
    });
  const byChars = (text: string) => Math.ceil(text.length / 4);

  it("drops each line's stamp for its speaker and counts what is left with the counter it is given", () => {
    for (const count of [countTokens, byChars, countTokens]) {
      const { placed } = run(400, count);
      expect(placed.map((p) => p.line)).toEqual([
        "Caroline: I went to the LGBTQ support group yesterday and it was powerful.",
        "Caroline: The transgender stories were so inspiring that I want to volunteer.",
      ]);
      for (const [i, p] of placed.entries()) {
        const o = episodes[i] as ReturnType<typeof said>;
        const stamp = o.transcript?.stamp ?? "";
        expect(p.tokens).toBe(Math.max(1, o.tokens - (count(stamp) - count("Caroline: "))) + 1);
      }
    }
  });

  it("leaves out, at every budget, exactly the lines whose undated form cannot fit", () => {
    for (let budget = 0; budget <= 80; budget++) {
      const { placed, omitted } = run(budget, countTokens);
      expect(placed.length + omitted.length).toBe(2);
      let spent = 0;
      for (const p of placed) spent += p.tokens;
      expect(spent).toBeLessThanOrEqual(budget);
    }
    // Room for the first line, its section and day headers, and not the second.
    const first = run(400, countTokens).placed[0];
    const headers = countTokens("## Relevant earlier conversation\n") + 2 + countTokens("[8 May 2023]") + 1;
    const tight = run((first?.tokens ?? 0) + headers, countTokens);
    expect(tight.placed.map((p) => p.object.objectId)).toEqual(["e1"]);
  });
});

describe("detail forms", () => {
  it("keep whole words within their token limits", () => {
    const text = "Alpha beta gamma delta. ".repeat(40);
    const cut = truncateToTokens(text, 20, countTokens);
    expect(countTokens(cut)).toBeLessThanOrEqual(20);
    expect(text.startsWith(cut.replace(/…$/, "").trim())).toBe(true);
    const forms = detailForms(text, countTokens, "[t] user: ");
    expect(forms.summary.startsWith("[t] user: ")).toBe(true);
    expect(forms.microTokens).toBeLessThanOrEqual(24);
    expect(forms.summaryTokens).toBeLessThanOrEqual(80);
  });
});

describe("passes 9 and 10: order and emit", () => {
  it("orders sections from static to dynamic", () => {
    expect(SECTION_ORDER.indexOf("rules")).toBeLessThan(SECTION_ORDER.indexOf("identity"));
    expect(SECTION_ORDER.indexOf("facts")).toBeLessThan(SECTION_ORDER.indexOf("episodes"));
    expect(SECTION_ORDER.at(-1)).toBe("messages");
  });

  it("trims the least important lines until the text fits", () => {
    const line = (id: string, tier: Ranked["tier"]) => ({
      object: object({ objectId: id }),
      section: "facts" as const,
      line: `- ${id} ${"word ".repeat(30)}`,
      detail: "full" as const,
      tier,
      compiledAs: "normalized_fact" as const,
      tokens: 35,
    });
    const out = emit({
      budgetTokens: 60,
      fixed: {},
      placed: [line("keep", "important"), line("drop", "minimal")],
      omitted: [],
      quarantined: [],
      candidateCount: 2,
      admittedCount: 2,
      count: countTokens,
      memos,
    });
    expect(out.tokens).toBeLessThanOrEqual(60);
    expect(out.trace.compiled.map((c) => c.object_id)).toEqual(["keep"]);
    expect(out.trace.omitted).toEqual([
      expect.objectContaining({ object_id: "drop", reason: "over_budget", priority_tier: "minimal" }),
    ]);
  });

  it("reports tier, ladder step and detail for every compiled object", () => {
    const out = compileContext(
      compileInput({
        query: "budget",
        budgetTokens: 500,
        now: NOW,
        threadId: "th",
        identity: { user_id: "u1" },
        environment: {},
        facts: [
          factRow(),
          factRow({
            id: "rule",
            key: "deploys",
            content: "deploys: never on Fridays",
            valueJson: '"never on Fridays"',
            sourceType: "policy",
            isConstraint: true,
          }),
        ],
      }),
    );
    expect(out.context.indexOf("## Rules")).toBeLessThan(out.context.indexOf("## Current facts"));
    expect(out.context).toContain("DO NOT: deploys: never on Fridays");
    expect(out.trace.compiled).toEqual([
      expect.objectContaining({
        object_id: "rule",
        priority_tier: "critical",
        compiled_as: "hard_constraint",
        authority_level: 1,
      }),
      expect.objectContaining({
        object_id: "f1",
        priority_tier: "important",
        compiled_as: "normalized_fact",
        detail: "full",
      }),
    ]);
    expect(out.trace.candidates).toEqual({ total: 2, admitted: 2, compiled: 2 });
  });
});
