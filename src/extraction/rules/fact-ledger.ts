import { holdsRedactionPlaceholder } from "../../domain/redaction";
import type { Confidence, ExtractedFact, ItemScope, RetiredValue } from "../../items/types";
import { strictest } from "./classification";
import { resolveTarget, STRONG_VIA } from "./fact-target";
import type { OpenScope } from "./scope-tracker";
import { readingScope, type SentenceContext, scopeKeyOf } from "./sentence-context";
import { GLOBAL, type SlotRegistry } from "./slot-registry";
import type { SlotReading } from "./slots/reading";
import { normalizeValue } from "./text";
import { isTimeSensitive, sameFigures, sameValue, valueKind } from "./values";

/** The key a retired phrase of the assistant's is filed under: it fills no slot of its own. */
const CORRECTED = "assistant_said";

/**
 * The facts of one extraction run, and the supersession between them. A reading becomes a fact of
 * the slot it resolves to; a global fact whose slot already holds a different current value
 * supersedes it, unless the sentence is a question, hypothetical or hedged (a hedge becomes a draft
 * of the slot instead). A historical statement retires a value rather than stating one.
 */
export class FactLedger {
  readonly facts: ExtractedFact[] = [];
  readonly retiredValues: RetiredValue[] = [];
  /** What `retiredValues` holds, as (message, key, normalized value): a long turn retires many steps. */
  private readonly retired = new Set<string>();
  /** Readings no slot could be found for. */
  dropped = 0;

  constructor(private readonly registry: SlotRegistry) {}

  /** Records what a reading states; the slot key and, when it superseded one, the value it replaced. */
  record(reading: SlotReading, ctx: SentenceContext): { key: string; replacedValue: string | null } | null {
    // "It's $33,400" after a proposal prices the proposal: a figure of the one kind only one slot
    // holds, in the proposal's scope (hiding nothing: the turn stays, its value stays a supposition).
    const proposed = ctx.proposal && reading.termOnly && !ctx.scope ? ctx.proposal : null;
    let scope = proposed ?? readingScope(reading, ctx);
    const scopeKey = scopeKeyOf(scope);
    const sole = proposed ? this.registry.soleOfKind(valueKind(reading.value), scopeKey) : undefined;
    const target =
      resolveTarget(this.registry, reading, scopeKey) ??
      (sole ? { key: sole.key, value: reading.value, via: "kind" as const } : null) ??
      (reading.fallbackKey
        ? { key: this.registry.resolveName(reading.fallbackKey), value: reading.value, via: "named" as const }
        : null);
    if (!target) {
      this.dropped++;
      return null;
    }
    const { key, value } = target;
    // "My password is [REDACTED]": what is left of a hidden value is not a value of the slot.
    if (holdsRedactionPlaceholder(value)) {
      this.dropped++;
      return null;
    }
    if (reading.historical || (ctx.historical && reading.kind === "copula")) {
      this.registry.noteHistory(key, value, scopeKey);
      if (scopeKey === GLOBAL) this.retire(ctx.message.id, key, value);
      return null;
    }

    const global = scopeKey === GLOBAL;
    const previous = this.registry.get(key, scopeKey);
    const previousValue = previous?.value ?? null;
    // A draft or hypothetical that names the figure the slot already holds is no alternative to it.
    const restated =
      previousValue !== null &&
      (sameValue(previousValue, value) || (!global && sameFigures(previousValue, value)));
    if (restated) {
      // A restatement is not new state, but it is still what this message says: the service keeps
      // no new version, yet learns that the message stated the slot, so it dates the message when
      // the slot later changes.
      this.registry.touch(key, scopeKey);
      if (global && !ctx.question && !ctx.hypothetical) this.push(this.restatement(key, value, ctx));
      return { key, replacedValue: null };
    }
    const conflicting = previousValue !== null;
    // A hedge never displaces a firmer value: it is kept as a draft of that slot instead.
    if (global && ctx.tentative && conflicting && !reading.change) {
      scope = { scope: "draft", scope_id: `tentative@${ctx.message.id}` };
    }
    const stillGlobal = scopeKeyOf(scope) === GLOBAL;
    const supersedes =
      stillGlobal && conflicting && !ctx.question && !ctx.hypothetical && previous !== undefined
        ? previous.key
        : null;

    let confidence: Confidence = "high";
    if (!STRONG_VIA.has(target.via)) confidence = "medium";
    if (
      conflicting &&
      !reading.change &&
      !ctx.changeWords &&
      !isTimeSensitive(key, valueKind(value)) &&
      !ctx.authority
    ) {
      // Same slot, different value, no change words and nothing time-bound: likely but not certain.
      confidence = confidence === "high" ? "medium" : confidence;
    }
    if (ctx.tentative || ctx.hypothetical || reading.tentative || !stillGlobal) confidence = "low";

    let classification = ctx.classification;
    if (reading.kind === "secret") {
      classification = strictest(classification, { classification: "highly_restricted", allow_roles: [] });
    }
    const finalScope: ItemScope = scope?.scope ?? "global";
    const fact: ExtractedFact = {
      key,
      value,
      ref: ctx.message.id,
      ts: ctx.message.ts,
      supersedes,
      scope: finalScope,
      scope_id: finalScope === "global" ? null : (scope?.scope_id ?? null),
      classification: classification.classification,
      allow_roles: [...classification.allow_roles],
      authority: ctx.authority,
      confidence,
    };
    this.push(fact);
    this.registry.set(key, value, scopeKeyOf(scope));
    // "net 30" in "brand refresh, $4,800, net 30" dies on its own too: turns quote it without the rest.
    if (supersedes && target.replaced) this.retire(ctx.message.id, key, target.replaced);
    return { key, replacedValue: supersedes ? previousValue : null };
  }

  /**
   * A scope adopted by the turn `ctx` is in ("let's go with that"): each value the scope stated
   * becomes the slot's current value, said by this turn, replacing a different current one.
   */
  adopt(scope: OpenScope, ctx: SentenceContext): void {
    for (const slot of this.registry.ownSlots(scopeKeyOf(scope))) {
      const value = slot.value as string;
      const current = this.registry.get(slot.key, GLOBAL)?.value ?? null;
      if (current !== null && sameValue(current, value)) continue;
      const supersedes = current !== null ? slot.key : null;
      this.push({ ...this.restatement(slot.key, value, ctx), supersedes, confidence: "high" });
      this.registry.set(slot.key, value, GLOBAL);
    }
  }

  private restatement(key: string, value: string, ctx: SentenceContext): ExtractedFact {
    return {
      key,
      value,
      ref: ctx.message.id,
      ts: ctx.message.ts,
      supersedes: null,
      scope: "global",
      scope_id: null,
      classification: ctx.classification.classification,
      allow_roles: [...ctx.classification.allow_roles],
      authority: ctx.authority,
      confidence: ctx.tentative ? "low" : "high",
    };
  }

  /** A phrase of the assistant's that this user turn corrected: retired, tied to no slot. */
  retireSaid(id: string, phrase: string): void {
    this.retire(id, CORRECTED, phrase);
  }

  private retire(id: string, key: string, value: string): void {
    const entry = `${id}\u0000${key}\u0000${normalizeValue(value)}`;
    if (!this.retired.has(entry)) {
      this.retired.add(entry);
      this.retiredValues.push({ id, key, value });
    }
  }

  /** Keeps one fact per (message, key): the later value wins, with the earlier's supersession. */
  private push(fact: ExtractedFact): void {
    const index = this.facts.findIndex((f) => f.ref === fact.ref && f.key === fact.key);
    if (index === -1) {
      this.facts.push(fact);
      return;
    }
    const earlier = this.facts[index] as ExtractedFact;
    if (earlier.scope === "global" && fact.scope !== "global") return;
    // "We moved it to Thursday … the final date is Monday": Thursday was a step, not the outcome.
    if (earlier.scope === "global" && !sameValue(earlier.value, fact.value)) {
      this.retire(fact.ref, fact.key, earlier.value);
    }
    // What the message as a whole replaced is what existed before it, not its own earlier value.
    this.facts[index] = { ...fact, supersedes: earlier.supersedes };
  }
}
