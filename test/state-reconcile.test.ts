import { describe, expect, it } from "vitest";
import { ITEM_REFS_KEPT, withBoundedRefs } from "../src/items/item-refs";
import { computeUid } from "../src/items/items";
import { type ReconcileInput, reconcile } from "../src/items/reconcile";
import { renderItemLine } from "../src/items/render";
import type { CandidateItem, StateItem, StateItemType } from "../src/items/types";

const NOW = "2026-02-16T15:42:30.000Z";
const TS = {
  u1: "2026-02-16T10:00:00.000Z",
  a1: "2026-02-16T10:05:00.000Z",
  u2: "2026-02-16T10:10:00.000Z",
};

const REDIS = "Use Redis for caching";
const MEMCACHED = "Use Memcached for caching instead of Redis";

function stored(type_tag: StateItemType, text: string, overrides: Partial<StateItem> = {}): StateItem {
  return {
    uid: computeUid(type_tag, text),
    text,
    status: type_tag === "action" || type_tag === "question" ? "open" : "active",
    type_tag,
    topic_tags: [],
    refs: ["old1"],
    confidence: "medium",
    replaced_by: null,
    supersession_evidence: null,
    conflict: false,
    pinned: false,
    source: "llm",
    created_at: "2026-02-01T00:00:00.000Z",
    last_seen_at: "2026-02-01T00:00:00.000Z",
    scope: "global",
    scope_id: null,
    classification: "public",
    allow_roles: [],
    ...overrides,
  };
}

function cand(type_tag: StateItemType, text: string, overrides: Partial<CandidateItem> = {}): CandidateItem {
  return {
    type_tag,
    text,
    status: type_tag === "action" || type_tag === "question" ? "open" : "active",
    confidence: "medium",
    topic_tags: [],
    refs: ["u1"],
    supersedes: null,
    conflict: false,
    scope: "global",
    scope_id: null,
    classification: "public",
    allow_roles: [],
    ...overrides,
  };
}

/** Stub cosine: listed pairs (either order) score as given, everything else 0. */
function sims(...pairs: [string, string, number][]): (a: string, b: string) => number {
  return (a, b) => pairs.find(([x, y]) => (x === a && y === b) || (x === b && y === a))?.[2] ?? 0;
}

function run(overrides: Partial<ReconcileInput>) {
  return reconcile({
    candidates: [],
    existing: [],
    allowedRefs: new Set(Object.keys(TS)),
    userMessageIds: new Set(["u1", "u2"]),
    messageTs: new Map(Object.entries(TS)),
    similarity: sims(),
    now: NOW,
    ...overrides,
  });
}

const byUid = (items: StateItem[], uid: string) => items.find((i) => i.uid === uid);

describe("insert", () => {
  it("inserts a dissimilar candidate with a computed uid and last_seen_at from its newest ref", () => {
    const out = run({
      candidates: [cand("decision", REDIS, { refs: ["a1", "u1"], topic_tags: ["caching"] })],
    });
    expect(out.upserts).toEqual([
      {
        uid: computeUid("decision", REDIS),
        text: REDIS,
        status: "active",
        type_tag: "decision",
        topic_tags: ["caching"],
        refs: ["a1", "u1"],
        confidence: "medium",
        replaced_by: null,
        supersession_evidence: null,
        conflict: false,
        pinned: false,
        source: "llm",
        created_at: NOW,
        last_seen_at: TS.a1,
        scope: "global",
        scope_id: null,
        classification: "public",
        allow_roles: [],
      },
    ]);
    expect(out.superseded).toEqual([]);
    expect(out.result).toEqual({
      items_extracted: 1,
      items_merged: 0,
      items_conflicted: 0,
      items_superseded: 0,
      items_dropped: 0,
    });
  });

  it("records the source it is given", () => {
    expect(run({ candidates: [cand("risk", "x")], source: "rules" }).upserts[0]?.source).toBe("rules");
  });

  it("inserts below 0.85 and leaves the near item alone", () => {
    const old = stored("decision", REDIS);
    const out = run({
      existing: [old],
      candidates: [cand("decision", "B")],
      similarity: sims([REDIS, "B", 0.8499]),
    });
    expect(out.upserts.map((i) => i.uid)).toEqual([computeUid("decision", "B")]);
    expect(out.upserts[0]?.conflict).toBe(false);
  });

  it("never takes the superseded status from a candidate", () => {
    const out = run({ candidates: [cand("action", "Run migration", { status: "superseded" })] });
    expect(out.upserts[0]?.status).toBe("open");
  });
});

describe("refs validation and cap", () => {
  it("keeps only refs from this batch", () => {
    const out = run({ candidates: [cand("decision", REDIS, { refs: ["ghost", "u2", "u2"] })] });
    expect(out.upserts[0]?.refs).toEqual(["u2"]);
    expect(out.upserts[0]?.last_seen_at).toBe(TS.u2);
  });

  it.each([
    ["invalid", ["ghost", "old1"]],
    ["empty", []],
  ])("drops a candidate whose refs are all %s", (_name, refs) => {
    const out = run({ candidates: [cand("decision", REDIS, { refs })] });
    expect(out.upserts).toEqual([]);
    expect(out.result.items_dropped).toBe(1);
    expect(out.result.items_extracted).toBe(0);
  });

  it("processes at most 25 candidates by default and counts the rest as dropped", () => {
    const candidates = Array.from({ length: 30 }, (_, i) => cand("action", `Task number ${i}`));
    const out = run({ candidates });
    expect(out.upserts.map((i) => i.text)).toEqual(candidates.slice(0, 25).map((c) => c.text));
    expect(out.result).toMatchObject({ items_extracted: 25, items_dropped: 5 });
  });

  it("honours a custom cap", () => {
    const candidates = ["a", "b", "c"].map((t) => cand("risk", t));
    const out = run({ candidates, maxCandidates: 2 });
    expect(out.upserts.map((i) => i.text)).toEqual(["a", "b"]);
    expect(out.result).toMatchObject({ items_extracted: 2, items_dropped: 1 });
  });
});

describe("merge", () => {
  it("merges at >= 0.92: union refs and tags, status precedence, max confidence", () => {
    const old = stored("action", "Run migration 025", {
      refs: ["old1"],
      topic_tags: ["deploy", "db"],
      confidence: "high",
    });
    const c = cand("action", "Run the 025 migration", {
      status: "done",
      confidence: "low",
      refs: ["u1", "old1"],
      topic_tags: ["DB", "ops", "release"],
    });
    const out = run({ existing: [old], candidates: [c], similarity: sims([old.text, c.text, 0.92]) });
    expect(out.upserts).toHaveLength(1);
    const merged = out.upserts[0];
    expect(merged).toMatchObject({
      uid: old.uid,
      text: old.text,
      status: "done",
      confidence: "high",
      refs: ["old1", "u1"],
      topic_tags: ["deploy", "db", "ops"],
      created_at: old.created_at,
      last_seen_at: TS.u1,
    });
    expect(out.result).toMatchObject({ items_extracted: 1, items_merged: 1, items_conflicted: 0 });
  });

  it("merges at exactly 0.92 without any topic boost", () => {
    const old = stored("decision", REDIS);
    const out = run({
      existing: [old],
      candidates: [cand("decision", "B")],
      similarity: sims([REDIS, "B", 0.92]),
    });
    expect(out.upserts.map((i) => i.uid)).toEqual([old.uid]);
    expect(out.result).toMatchObject({ items_merged: 1, items_conflicted: 0 });
  });

  it("does not move the status backwards", () => {
    const old = stored("question", "Which cache?", { status: "answered" });
    const c = cand("question", "Which cache to use?", { status: "open" });
    const out = run({ existing: [old], candidates: [c], similarity: sims([old.text, c.text, 0.95]) });
    expect(out.upserts[0]?.status).toBe("answered");
  });

  it("last_seen_at never moves back on merge", () => {
    const old = stored("decision", REDIS, { last_seen_at: "2026-03-01T00:00:00.000Z" });
    const out = run({ existing: [old], candidates: [cand("decision", REDIS, { refs: ["u2"] })] });
    expect(out.upserts[0]?.last_seen_at).toBe("2026-03-01T00:00:00.000Z");
    expect(out.upserts[0]?.refs).toEqual(["old1", "u2"]);
  });

  it("takes the same-uid path whatever the similarity says", () => {
    const old = stored("decision", REDIS);
    const out = run({ existing: [old], candidates: [cand("decision", `  "use redis  FOR caching" `)] });
    expect(out.upserts.map((i) => i.uid)).toEqual([old.uid]);
    expect(out.result.items_merged).toBe(1);
  });

  it("a candidate's superseded status cannot supersede through a merge", () => {
    const old = stored("decision", REDIS);
    const out = run({ existing: [old], candidates: [cand("decision", REDIS, { status: "superseded" })] });
    expect(out.upserts[0]?.status).toBe("active");
    expect(out.superseded).toEqual([]);
  });

  it("a merged item is as restricted as the stricter source", () => {
    const old = stored("decision", REDIS, { classification: "restricted", allow_roles: ["ops", "HR"] });
    const c = cand("decision", REDIS, { classification: "confidential", allow_roles: ["hr", "finance"] });
    const out = run({ existing: [old], candidates: [c] });
    expect(out.upserts[0]).toMatchObject({ classification: "confidential", allow_roles: ["HR"] });
  });

  it("merges a near-duplicate with an item inserted earlier in the same batch", () => {
    const out = run({
      candidates: [cand("decision", REDIS), cand("decision", "Use Redis as cache", { refs: ["u2"] })],
      similarity: sims([REDIS, "Use Redis as cache", 0.97]),
    });
    expect(out.upserts).toHaveLength(1);
    expect(out.upserts[0]?.refs).toEqual(["u1", "u2"]);
    expect(out.result).toMatchObject({ items_extracted: 2, items_merged: 1 });
  });

  it("leaves the input items untouched", () => {
    const old = stored("decision", REDIS);
    const snapshot = structuredClone(old);
    run({ existing: [old], candidates: [cand("decision", REDIS, { refs: ["u2"] })] });
    expect(old).toEqual(snapshot);
  });

  it("an item restated turn after turn keeps its first and newest sources and counts them all", () => {
    // One restatement per run, as a thread that posts each turn gives them.
    let item: StateItem | undefined;
    for (let n = 0; n < 100; n++) {
      const id = `r${n}`;
      const out = run({
        existing: item ? [item] : [],
        candidates: [cand("decision", REDIS, { refs: [id] })],
        allowedRefs: new Set([id]),
        messageTs: new Map([[id, TS.u1]]),
      });
      item = out.upserts[0];
      // Under the cap the item is as seed 002 merges it: every source, no count beside them.
      if (n === ITEM_REFS_KEPT - 1) {
        expect(item?.refs).toHaveLength(ITEM_REFS_KEPT);
        expect(item?.ref_count).toBeUndefined();
      }
    }
    const newest = Array.from({ length: ITEM_REFS_KEPT - 1 }, (_, i) => `r${100 - ITEM_REFS_KEPT + 1 + i}`);
    expect(item?.refs).toEqual(["r0", ...newest]);
    expect(item?.ref_count).toBe(100);
    expect(renderItemLine(item as StateItem)).toContain("[refs:100]");
  });

  it("a bulk run's candidate is cut the same way, and a source it keeps is not counted twice", () => {
    const ids = Array.from({ length: 80 }, (_, i) => `b${i}`);
    const inserted = run({
      candidates: [cand("decision", REDIS, { refs: ids })],
      allowedRefs: new Set(ids),
      messageTs: new Map(ids.map((id) => [id, TS.u1])),
    }).upserts[0] as StateItem;
    expect(inserted.refs).toEqual(["b0", ...ids.slice(80 - ITEM_REFS_KEPT + 1)]);
    expect(inserted.ref_count).toBe(80);
    const again = run({
      existing: [inserted],
      candidates: [cand("decision", REDIS, { refs: ["b79", "b0"] })],
      allowedRefs: new Set(ids),
      messageTs: new Map(ids.map((id) => [id, TS.u1])),
    }).upserts[0];
    expect(again?.refs).toEqual(inserted.refs);
    expect(again?.ref_count).toBe(80);
  });

  it("a source one run cites twice counts once, even after the cut dropped it", () => {
    const ids = Array.from({ length: 81 }, (_, i) => `b${i}`);
    const out = run({
      candidates: [
        cand("decision", REDIS, { refs: ids.slice(0, 80) }),
        // A near-duplicate merged into it, citing one source the cut dropped and one new.
        cand("decision", "Use Redis as cache", { refs: ["b5", "b80"] }),
      ],
      similarity: sims([REDIS, "Use Redis as cache", 0.97]),
      allowedRefs: new Set(ids),
      messageTs: new Map(ids.map((id) => [id, TS.u1])),
    });
    expect(out.upserts).toHaveLength(1);
    expect(out.upserts[0]?.refs).toEqual(["b0", ...ids.slice(81 - ITEM_REFS_KEPT + 1)]);
    expect(out.upserts[0]?.ref_count).toBe(81);
  });

  it("an item stored before the cut is read back with its first and newest sources, its count kept", () => {
    const refs = Array.from({ length: 4417 }, (_, i) => `m${i}`);
    const item = withBoundedRefs(stored("decision", REDIS, { refs }));
    expect(item.refs).toEqual(["m0", ...refs.slice(4417 - ITEM_REFS_KEPT + 1)]);
    expect(item.ref_count).toBe(4417);
    const small = stored("decision", REDIS, { refs: ["m1", "m2"] });
    expect(withBoundedRefs(small)).toBe(small);
  });
});

describe("topic boost", () => {
  const old = stored("decision", REDIS, { topic_tags: ["caching"] });

  const MERGED = { items_merged: 1, items_conflicted: 0 };
  const CONFLICT = { items_merged: 0, items_conflicted: 1 };
  const INSERT = { items_merged: 0, items_conflicted: 0 };
  it.each([
    ["lifts 0.905 to a merge with a shared topic", 0.905, ["Caching"], MERGED, 1],
    ["leaves 0.905 a conflict without one", 0.905, ["infra"], CONFLICT, 2],
    ["lifts 0.835 into the conflict band with a shared topic", 0.835, ["caching"], CONFLICT, 2],
    ["leaves 0.835 an insert without one", 0.835, [], INSERT, 1],
  ])("%s", (_name, cosine, tags, counts, upserts) => {
    const c = cand("decision", "B", { topic_tags: tags });
    const out = run({ existing: [old], candidates: [c], similarity: sims([REDIS, "B", cosine]) });
    expect(out.result).toMatchObject(counts);
    expect(out.upserts).toHaveLength(upserts);
  });

  it("caps the boosted score at 1.0, so a tie keeps the first-listed item", () => {
    const first = stored("decision", "First");
    const second = stored("decision", "Second", { topic_tags: ["caching"] });
    const c = cand("decision", "C", { topic_tags: ["caching"] });
    const out = run({
      existing: [first, second],
      candidates: [c],
      similarity: sims(["First", "C", 1], ["Second", "C", 0.99]),
    });
    expect(out.upserts.map((i) => i.uid)).toEqual([first.uid]);
  });
});

describe("conflict", () => {
  it("between 0.85 and 0.92 without supersession marks both sides and inserts the candidate", () => {
    const old = stored("decision", REDIS);
    const c = cand("decision", "Use Memcached for caching");
    const out = run({ existing: [old], candidates: [c], similarity: sims([REDIS, c.text, 0.85]) });
    expect(byUid(out.upserts, old.uid)).toMatchObject({
      conflict: true,
      status: "active",
      replaced_by: null,
    });
    expect(byUid(out.upserts, computeUid("decision", c.text))).toMatchObject({
      conflict: true,
      status: "active",
    });
    expect(out.superseded).toEqual([]);
    expect(out.result).toMatchObject({ items_extracted: 1, items_conflicted: 1, items_merged: 0 });
  });

  it("just below 0.92 is still a conflict, not a merge", () => {
    const old = stored("decision", REDIS);
    const out = run({
      existing: [old],
      candidates: [cand("decision", "B")],
      similarity: sims([REDIS, "B", 0.9199]),
    });
    expect(out.result.items_conflicted).toBe(1);
    expect(out.upserts).toHaveLength(2);
  });
});

describe("supersede", () => {
  const old = stored("decision", REDIS, { topic_tags: ["caching"] });
  const newUid = computeUid("decision", MEMCACHED);

  it("with trigger, replacement verb and a user ref: old superseded with structured evidence", () => {
    const c = cand("decision", MEMCACHED, { refs: ["a1", "u2"], conflict: true });
    const out = run({ existing: [old], candidates: [c], similarity: sims([REDIS, MEMCACHED, 0.88]) });
    expect(byUid(out.upserts, old.uid)).toMatchObject({
      status: "superseded",
      replaced_by: newUid,
      supersession_evidence: { trigger: "instead", ref_msg_id: "u2", candidate_uid: newUid },
    });
    expect(byUid(out.upserts, newUid)).toMatchObject({
      status: "active",
      conflict: false,
      replaced_by: null,
    });
    expect(out.superseded).toEqual([old.uid]);
    expect(out.result).toMatchObject({ items_extracted: 1, items_superseded: 1, items_conflicted: 0 });
  });

  it.each([
    ["the trigger", "Use Memcached for caching", ["u1"]],
    ["a user ref", MEMCACHED, ["a1"]],
    ["a replacement verb", "Memcached for caching instead of Redis", ["u1"]],
  ])("without %s it is a conflict, not a supersession", (_missing, text, refs) => {
    const out = run({
      existing: [old],
      candidates: [cand("decision", text, { refs })],
      similarity: sims([REDIS, text, 0.88]),
    });
    expect(byUid(out.upserts, old.uid)).toMatchObject({
      status: "active",
      conflict: true,
      replaced_by: null,
    });
    expect(out.superseded).toEqual([]);
    expect(out.result).toMatchObject({ items_superseded: 0, items_conflicted: 1 });
  });

  it("an explicit supersedes uid replaces the named item, with trigger 'explicit' when no signal", () => {
    const c = cand("decision", "Use Memcached for caching", { supersedes: old.uid, refs: ["a1"] });
    const uid = computeUid("decision", c.text);
    const out = run({ existing: [old], candidates: [c] });
    expect(byUid(out.upserts, old.uid)).toMatchObject({
      status: "superseded",
      replaced_by: uid,
      supersession_evidence: { trigger: "explicit", ref_msg_id: "a1", candidate_uid: uid },
    });
    expect(byUid(out.upserts, uid)?.conflict).toBe(false);
  });

  it("an explicit supersedes records the signal found", () => {
    const c = cand("decision", "We switched: use Memcached", { supersedes: old.uid, refs: ["a1", "u1"] });
    const out = run({ existing: [old], candidates: [c] });
    expect(byUid(out.upserts, old.uid)?.supersession_evidence).toMatchObject({
      trigger: "switched",
      ref_msg_id: "u1",
    });
  });

  it.each([
    ["of another type", stored("risk", REDIS)],
    [
      "already superseded",
      stored("decision", REDIS, { status: "superseded", replaced_by: "d_000000000000" }),
    ],
    ["in another scope", stored("decision", REDIS, { scope: "hypothetical" })],
  ])("an explicit supersedes naming an item %s changes nothing of it", (_name, target) => {
    const c = cand("decision", MEMCACHED, { supersedes: target.uid });
    const out = run({ existing: [target], candidates: [c] });
    expect(out.upserts.map((i) => i.uid)).toEqual([newUid]);
    expect(out.superseded).toEqual([]);
  });

  it("an explicit supersedes naming an unknown uid just inserts", () => {
    const out = run({ candidates: [cand("decision", MEMCACHED, { supersedes: "d_ffffffffffff" })] });
    expect(out.upserts.map((i) => i.uid)).toEqual([newUid]);
    expect(out.result.items_superseded).toBe(0);
  });
});

describe("never resurrect, never cross types", () => {
  const gone = stored("decision", REDIS, { status: "superseded", replaced_by: "d_aaaaaaaaaaaa" });

  it("drops a candidate restating a superseded item's exact text", () => {
    const out = run({ existing: [gone], candidates: [cand("decision", REDIS)] });
    expect(out.upserts).toEqual([]);
    expect(out.result).toMatchObject({ items_dropped: 1, items_merged: 0 });
  });

  it("does not merge into or conflict with a superseded item, however similar", () => {
    for (const cosine of [0.99, 0.88]) {
      const out = run({
        existing: [gone],
        candidates: [cand("decision", "B")],
        similarity: sims([REDIS, "B", cosine]),
      });
      expect(out.upserts.map((i) => i.uid)).toEqual([computeUid("decision", "B")]);
      expect(out.upserts[0]?.conflict).toBe(false);
    }
  });

  it("never compares items of different types", () => {
    const risk = stored("risk", REDIS, { topic_tags: ["caching"] });
    const compared: string[] = [];
    const similarity = (a: string, b: string) => {
      compared.push(`${a}|${b}`);
      return 0.99;
    };
    const out = run({
      existing: [risk],
      candidates: [cand("decision", MEMCACHED, { topic_tags: ["caching"] })],
      similarity,
    });
    expect(compared).toEqual([]);
    expect(out.upserts.map((i) => i.uid)).toEqual([computeUid("decision", MEMCACHED)]);
    expect(out.upserts[0]?.conflict).toBe(false);
  });

  it("never compares items of different scopes", () => {
    const hypothetical = stored("decision", "Use Memcached in the what-if plan", { scope: "hypothetical" });
    const out = run({
      existing: [hypothetical],
      candidates: [cand("decision", MEMCACHED)],
      similarity: sims([hypothetical.text, MEMCACHED, 0.99]),
    });
    expect(out.upserts.map((i) => i.uid)).toEqual([computeUid("decision", MEMCACHED)]);
  });
});
