import { computeUid, hasReplacementVerb, hasSupersessionSignal } from "../../items/items";
import type { CandidateItem, StateItem } from "../../items/types";
import { readItem } from "./items";
import type { SentenceContext } from "./sentence-context";
import { isRequest } from "./signals";
import { normalizeValue } from "./text";

/**
 * The candidate items of one extraction run: at most one per sentence, merged with an earlier item
 * of the same type, scope and text, and pointing at the item it replaces when the sentence says so.
 */
export class ItemLedger {
  readonly items: CandidateItem[] = [];

  /** `existing` are the thread's items before this run, where a replaced item may be found. */
  constructor(private readonly existing: readonly StateItem[]) {}

  /** Reads the sentence's item, if any; `keys` are the slots its facts went to, `replacedValue` what they replaced. */
  add(core: string, ctx: SentenceContext, keys: string[], replacedValue: string | null): void {
    const reading = readItem(core, {
      question: ctx.question,
      request: isRequest(core),
      tentative: ctx.tentative,
      hypothetical: ctx.hypothetical,
      slotKeys: keys,
    });
    if (!reading) return;
    const scope = ctx.scope;
    const candidate: CandidateItem = {
      type_tag: reading.type_tag,
      text: reading.text,
      status: reading.status,
      confidence: reading.confidence,
      topic_tags: reading.topic_tags,
      refs: [ctx.message.id],
      supersedes: null,
      conflict: false,
      scope: scope?.scope ?? "global",
      scope_id: scope?.scope_id ?? null,
      classification: ctx.classification.classification,
      allow_roles: [...ctx.classification.allow_roles],
    };
    if (ctx.message.role === "user" && !ctx.question && !ctx.hypothetical) {
      candidate.supersedes = this.replacedItem(candidate, core, replacedValue);
    }
    const same = this.items.find(
      (i) =>
        i.type_tag === candidate.type_tag &&
        i.scope === candidate.scope &&
        i.scope_id === candidate.scope_id &&
        normalizeValue(i.text) === normalizeValue(candidate.text),
    );
    if (same) {
      for (const ref of candidate.refs) if (!same.refs.includes(ref)) same.refs.push(ref);
      return;
    }
    this.items.push(candidate);
  }

  /**
   * The uid of the item this one replaces, only with seed 002's change language and a replacement
   * verb, and only when the replaced item is identified by the value being replaced ("instead of
   * Redis", or the previous value of the slot this sentence changed).
   */
  private replacedItem(candidate: CandidateItem, text: string, replacedValue: string | null): string | null {
    if (!hasSupersessionSignal(text) || !hasReplacementVerb(text)) return null;
    const old = replacedValue ?? /\binstead of\s+([^,.;]+)/i.exec(text)?.[1]?.trim() ?? null;
    if (!old) return null;
    const needle = old.toLowerCase();
    const comparable = (i: { type_tag: string; scope: string; scope_id: string | null }) =>
      i.type_tag === candidate.type_tag && i.scope === candidate.scope && i.scope_id === candidate.scope_id;
    for (let i = this.items.length - 1; i >= 0; i--) {
      const earlier = this.items[i] as CandidateItem;
      if (comparable(earlier) && earlier.text.toLowerCase().includes(needle)) {
        return computeUid(earlier.type_tag, earlier.text);
      }
    }
    let best: StateItem | null = null;
    for (const item of this.existing) {
      if (item.status === "superseded" || !comparable(item)) continue;
      if (!item.text.toLowerCase().includes(needle)) continue;
      if (
        !best ||
        item.last_seen_at > best.last_seen_at ||
        (item.last_seen_at === best.last_seen_at && item.uid > best.uid)
      ) {
        best = item;
      }
    }
    return best?.uid ?? null;
  }
}
