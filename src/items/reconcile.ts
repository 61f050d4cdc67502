import { joinRefs } from "./item-refs";
import {
  computeUid,
  DEFAULT_STATUS,
  hasReplacementVerb,
  hasSupersessionSignal,
  isValidStatus,
  MAX_TOPIC_TAGS,
  maxConfidence,
  resolveStatusMerge,
} from "./items";
import type { CandidateItem, ItemClassification, StateItem } from "./types";

/**
 * Phase B of extraction (seed 002): the deterministic reconciler. The extractor only proposes; this
 * decides, per candidate, between merge, supersede, conflict and insert, so the same batch and the
 * same similarity function always give the same state. Pure and synchronous: the caller embeds
 * beforehand and persists afterwards.
 */

export const MERGE_THRESHOLD = 0.92;
export const CONFLICT_THRESHOLD = 0.85;
/** Fixed, not proportional, so tests can pin exactly which side of a threshold a pair falls on. */
export const TOPIC_BOOST = 0.02;
export const DEFAULT_MAX_CANDIDATES = 25;

export interface ReconcileInput {
  candidates: CandidateItem[];
  /** Current items of the thread, superseded ones included so that none is ever resurrected. */
  existing: StateItem[];
  /** Ids of the messages in this batch: the only refs an extractor may cite. */
  allowedRefs: ReadonlySet<string>;
  /** The subset of allowedRefs written by the user; only they can authorise a supersession. */
  userMessageIds: ReadonlySet<string>;
  messageTs: ReadonlyMap<string, string>;
  /** Cosine similarity of two texts, embedded by the caller. */
  similarity: (a: string, b: string) => number;
  now: string;
  maxCandidates?: number;
  /** Which extractor proposed the candidates; recorded on items this run creates. */
  source?: StateItem["source"];
}

/** Every candidate is counted once: items_extracted + items_dropped = candidates.length. */
export interface ReconcileResult {
  /** Candidates acted on (merged, inserted, conflicted or superseding). */
  items_extracted: number;
  items_merged: number;
  /** Candidates inserted in conflict with an existing item. */
  items_conflicted: number;
  /** Existing items marked superseded. */
  items_superseded: number;
  /** Over the cap, without a valid ref, or restating an item already superseded. */
  items_dropped: number;
}

export interface ReconcileOutput {
  /** Every item created or changed, in its final state, in order of first change. */
  upserts: StateItem[];
  /** Uids of the items this run superseded. */
  superseded: string[];
  result: ReconcileResult;
}

const SUPERSEDED = "superseded";

const CLASSIFICATION_RANK: Record<ItemClassification, number> = {
  public: 0,
  restricted: 1,
  confidential: 2,
  highly_restricted: 3,
};

const latest = (a: string, b: string | null) => (b !== null && b > a ? b : a);

function unionTags(a: string[], b: string[]): string[] {
  const seen = new Map<string, string>();
  for (const tag of [...a, ...b]) if (!seen.has(tag.toLowerCase())) seen.set(tag.toLowerCase(), tag);
  return [...seen.values()].slice(0, MAX_TOPIC_TAGS);
}

function tagsOverlap(a: string[], b: string[]): boolean {
  const lower = new Set(a.map((t) => t.toLowerCase()));
  return b.some((t) => lower.has(t.toLowerCase()));
}

const sameScope = (a: { scope: string; scope_id: string | null }, b: typeof a) =>
  a.scope === b.scope && a.scope_id === b.scope_id;

export function reconcile(input: ReconcileInput): ReconcileOutput {
  const { allowedRefs, userMessageIds, messageTs, similarity, now } = input;
  const max = input.maxCandidates ?? DEFAULT_MAX_CANDIDATES;
  const pool = new Map(input.existing.map((item) => [item.uid, { ...item }]));
  const changed = new Set<string>();
  const superseded: string[] = [];
  const result: ReconcileResult = {
    items_extracted: 0,
    items_merged: 0,
    items_conflicted: 0,
    items_superseded: 0,
    items_dropped: Math.max(0, input.candidates.length - max),
  };

  // ISO-8601 UTC strings compare in time order; ids absent from the batch carry no time.
  const newestTs = (refs: string[]) =>
    refs.reduce<string | null>((acc, ref) => {
      const ts = messageTs.get(ref) ?? null;
      return acc === null ? ts : latest(acc, ts);
    }, null);

  /** Every source counted for an item in this run, by uid, the ones its refs no longer keep included. */
  const counted = new Map<string, Set<string>>();
  const countedFor = (uid: string) => {
    let seen = counted.get(uid);
    if (!seen) {
      seen = new Set();
      counted.set(uid, seen);
    }
    return seen;
  };

  const put = (item: StateItem) => {
    pool.set(item.uid, item);
    changed.add(item.uid);
  };

  function merge(old: StateItem, cand: CandidateItem): void {
    const oldRank = CLASSIFICATION_RANK[old.classification];
    const stricter =
      CLASSIFICATION_RANK[cand.classification] > oldRank ? cand.classification : old.classification;
    // The merged item now cites both sources, so it may be no more visible than either of them.
    const roles = new Set(cand.allow_roles.map((r) => r.toLowerCase()));
    put({
      ...old,
      ...joinRefs(old, cand.refs, countedFor(old.uid)),
      topic_tags: unionTags(old.topic_tags, cand.topic_tags),
      status: resolveStatusMerge(old.type_tag, old.status, cand.status),
      confidence: maxConfidence(old.confidence, cand.confidence),
      last_seen_at: latest(old.last_seen_at, newestTs(cand.refs)),
      classification: stricter,
      allow_roles: old.allow_roles.filter((r) => roles.has(r.toLowerCase())),
    });
    result.items_merged++;
  }

  function insert(cand: CandidateItem, uid: string, conflict: boolean): void {
    put({
      uid,
      text: cand.text,
      status: cand.status,
      type_tag: cand.type_tag,
      topic_tags: cand.topic_tags.slice(0, MAX_TOPIC_TAGS),
      ...joinRefs({ refs: [] }, cand.refs, countedFor(uid)),
      confidence: cand.confidence,
      replaced_by: null,
      supersession_evidence: null,
      conflict,
      pinned: false,
      source: input.source ?? "llm",
      created_at: now,
      last_seen_at: newestTs(cand.refs) ?? now,
      scope: cand.scope,
      scope_id: cand.scope_id,
      classification: cand.classification,
      allow_roles: cand.allow_roles,
    });
  }

  function supersede(old: StateItem, cand: CandidateItem, uid: string, trigger: string, refMsgId: string) {
    put({
      ...old,
      status: SUPERSEDED,
      replaced_by: uid,
      supersession_evidence: { trigger, ref_msg_id: refMsgId, candidate_uid: uid },
    });
    superseded.push(old.uid);
    result.items_superseded++;
    // Supersession resolves the tension, so the replacement never also carries a conflict.
    insert(cand, uid, false);
  }

  /** Items a candidate may merge with, supersede or conflict with: same type and scope, still live. */
  const comparable = (item: StateItem, cand: CandidateItem) =>
    item.type_tag === cand.type_tag && item.status !== SUPERSEDED && sameScope(item, cand);

  function bestMatch(cand: CandidateItem): { item: StateItem; score: number } | null {
    let best: { item: StateItem; score: number } | null = null;
    for (const item of pool.values()) {
      if (!comparable(item, cand)) continue;
      const boost = tagsOverlap(item.topic_tags, cand.topic_tags) ? TOPIC_BOOST : 0;
      const score = Math.min(1, similarity(cand.text, item.text) + boost);
      if (best === null || score > best.score) best = { item, score };
    }
    return best;
  }

  function handle(raw: CandidateItem): boolean {
    const refs = [...new Set(raw.refs.filter((ref) => allowedRefs.has(ref)))];
    if (refs.length === 0) return false;
    // Supersession is decided here, with evidence; an extractor cannot claim it through the status.
    const status =
      raw.status !== SUPERSEDED && isValidStatus(raw.type_tag, raw.status)
        ? raw.status
        : DEFAULT_STATUS[raw.type_tag];
    const cand: CandidateItem = { ...raw, refs, status };
    const uid = computeUid(cand.type_tag, cand.text);

    const same = pool.get(uid);
    if (same) {
      if (same.status === SUPERSEDED) return false;
      merge(same, cand);
      return true;
    }

    const trigger = hasSupersessionSignal(cand.text);
    const userRef = refs.find((ref) => userMessageIds.has(ref)) ?? null;
    const named = cand.supersedes ? pool.get(cand.supersedes) : undefined;
    if (named && comparable(named, cand)) {
      supersede(named, cand, uid, trigger ?? "explicit", userRef ?? refs[0] ?? "");
      return true;
    }

    const best = bestMatch(cand);
    if (best && best.score >= MERGE_THRESHOLD) {
      merge(best.item, cand);
    } else if (best && best.score >= CONFLICT_THRESHOLD) {
      if (trigger && userRef && hasReplacementVerb(cand.text)) {
        supersede(best.item, cand, uid, trigger, userRef);
      } else {
        put({ ...best.item, conflict: true });
        insert(cand, uid, true);
        result.items_conflicted++;
      }
    } else {
      insert(cand, uid, cand.conflict);
    }
    return true;
  }

  for (const cand of input.candidates.slice(0, max)) {
    if (handle(cand)) result.items_extracted++;
    else result.items_dropped++;
  }

  const upserts = [...changed].map((uid) => pool.get(uid)).filter((item) => item !== undefined);
  return { upserts, superseded, result };
}
