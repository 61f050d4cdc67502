import { readMarkers } from "../../facts/markers";
import { computeUid, hasReplacementVerb, hasSupersessionSignal } from "../../state/items";
import type {
  CandidateItem,
  Confidence,
  ExtractedFact,
  ExtractionInput,
  ExtractionMessage,
  ExtractionOutput,
  Extractor,
  ItemScope,
  MessageEcho,
  MessageScope,
  RetiredValue,
  StateItem,
} from "../../state/types";
import { type ClassificationHint, classifyText, strictest } from "./classification";
import { readItem } from "./items";
import { type OpenScope, ScopeTracker } from "./scope-tracker";
import { splitClauses, splitSentences } from "./sentences";
import {
  changeSignal,
  isAcknowledgement,
  isHistorical,
  isHypothetical,
  isQuestion,
  isRequest,
  isTentative,
  opensHypotheticalMessage,
} from "./signals";
import { GLOBAL, type Slot, SlotRegistry } from "./slot-registry";
import { readSlots } from "./slots/read-slots";
import type { SlotReading } from "./slots/reading";
import { readAttribution, readLeadingTags, speakerAuthority } from "./speaker";
import { cleanText, contentWords, normalizeValue, stripAdverbial, stripFillers } from "./text";
import {
  figures,
  isTimeSensitive,
  replaceKind,
  sameFigures,
  sameValue,
  type ValueKind,
  valueKind,
} from "./values";

/**
 * The offline, deterministic extractor: the default adapter of the Extractor port. Pure and
 * synchronous (`extractFromMessages`); `RuleExtractor` wraps it for the port.
 *
 * Per user (or system) message: leading authority tags are read, the message's classification is
 * taken from markers, handling phrases and secrets, then each sentence is
 * 1. placed in a scope (an open exploratory/draft/task scope, a hypothetical sentence, a draft label,
 *    or global);
 * 2. read for slot facts, whose keys are resolved against the run's slots and `existingFacts`;
 * 3. read for one typed item.
 *
 * Supersession of facts (seed 000):
 * - implicit / temporal: a global fact whose slot already holds a different current value supersedes
 *   that key (a later statement of the same slot wins; time-sensitive slots get high confidence);
 * - explicit: corrections that name no slot ("Make that $150,000", "switch to Memcached instead of
 *   Redis", "go back to card-based UI", "send it to Miami instead") are resolved to the slot they
 *   change and supersede it;
 * - authority: the title a statement reports ("Per the CEO", "[VP]", "CFO says") goes on the fact's
 *   `authority`; the service's ladder decides whether it may supersede.
 * Guardrails: questions yield no facts; hypothetical, hedged-and-conflicting, draft and scoped facts
 * never supersede anything; "actually" or "correction" without a slot value change nothing.
 *
 * Items supersede an existing or earlier item only when the sentence has seed 002's change language
 * AND a replacement verb (the reconciler's own check), and the replaced item can be identified by
 * the value being replaced; otherwise `supersedes` stays null and the reconciler decides.
 *
 * Assistant messages never produce facts, items, scope changes or supersessions: an assistant
 * paraphrase is not evidence. An assistant turn directly after a user turn that acknowledges it or
 * repeats one of its values adds its id to the refs of that turn's items and raises their confidence
 * from medium to high. Tool messages are ignored.
 *
 * One fact per (message, key): the service derives fact ids from message and key, so the last value a
 * message gives a slot is the one kept (its supersession is the message's, not the intermediate's).
 */

interface SentenceContext {
  message: ExtractionMessage;
  scope: OpenScope | null;
  authority: string | null;
  classification: ClassificationHint;
  question: boolean;
  hypothetical: boolean;
  tentative: boolean;
  historical: boolean;
  draft: boolean;
  /** Change language in the sentence (strong, or weak with a value: seed 000 rule 1 guardrail). */
  changeWords: boolean;
}

interface FactTarget {
  key: string;
  value: string;
  /** How the slot was found: named by the sentence, or resolved from a correction. */
  via: "named" | "old_value" | "history" | "family" | "overlap" | "kind" | "recent" | "partial";
}

const STRONG_VIA = new Set<FactTarget["via"]>(["named", "old_value", "history", "partial"]);
const DRAFT_SENTENCE = /^draft\b/i;
const MARKER_BRACKETS =
  /\[(?:RESTRICTED|CONFIDENTIAL|HIGHLY[ _]RESTRICTED|SCOPE|INTERNAL|PUBLIC|SECRET|PRIVATE)\b[^\]]*\]\s*:?/gi;

const ATTR_KIND: Record<string, ValueKind> = {
  quantity: "count",
  count: "count",
  number: "count",
  units: "count",
  unit: "count",
  headcount: "count",
  size: "count",
  price: "money",
  cost: "money",
  budget: "money",
  amount: "money",
  fee: "money",
  total: "money",
  rate: "money",
  date: "date",
  day: "date",
  time: "date",
  deadline: "date",
  percentage: "percent",
  discount: "percent",
};

function scopeKeyOf(scope: OpenScope | null): string {
  return scope && scope.scope !== "global" ? `${scope.scope}:${scope.scope_id ?? ""}` : GLOBAL;
}

class Run {
  private readonly registry: SlotRegistry;
  private readonly tracker: ScopeTracker;
  readonly facts: ExtractedFact[] = [];
  readonly items: CandidateItem[] = [];
  /** Messages spoken inside a non-global scope, so the transcript tail can be gated like facts. */
  readonly messageScopes: MessageScope[] = [];
  dropped = 0;
  /** The items of the last user message, for an assistant confirmation right after it. */
  private pending: { items: CandidateItem[]; values: string[] } | null = null;
  readonly messageEchoes: MessageEcho[] = [];
  readonly retiredValues: RetiredValue[] = [];
  /** The global slot values the last user turn stated, for an assistant turn repeating them. */
  private statedTurn: { id: string; values: string[] } | null = null;
  /** The last user turn, when it was spoken inside a scope, for an assistant echo right after it. */
  private scopedTurn: { scope: OpenScope; text: string } | null = null;

  constructor(private readonly input: ExtractionInput) {
    this.registry = new SlotRegistry(input.existingFacts ?? []);
    this.tracker = new ScopeTracker(input.openScope);
  }

  openScope(): OpenScope | null {
    return this.tracker.current();
  }

  message(message: ExtractionMessage): void {
    if (message.role === "assistant") {
      this.confirm(message);
      this.echoScope(message);
      this.echoValues(message);
      return;
    }
    this.pending = null;
    this.scopedTurn = null;
    this.statedTurn = null;
    if (message.role !== "user" && message.role !== "system") return;
    const text = cleanText(message.content ?? "");
    if (!text) return;

    const tags = readLeadingTags(text);
    const messageAuthority = tags.authority ?? speakerAuthority(message.speaker);
    const classification = classifyText(text);
    const markers = readMarkers(text);
    const markerScope: OpenScope | null = markers.scope
      ? { scope: markers.scope, scope_id: markers.scopeLabel ?? null }
      : null;
    const body = tags.body.replace(MARKER_BRACKETS, " ").trim();
    const firstFact = this.facts.length;
    const firstItem = this.items.length;
    let messageHypothetical = false;
    let messageScope: OpenScope | null = null;
    let closedScope: OpenScope | null = null;

    const sentences = splitSentences(body);
    this.tracker.frame(sentences, body, message.id);
    for (const sentence of sentences) {
      const observed = this.tracker.observe(sentence, body, message.id);
      closedScope = closedScope ?? observed.closed;
      const lead = stripFillers(sentence);
      const attribution = readAttribution(lead);
      const core = stripFillers(stripAdverbial(attribution.rest));
      if (!core) continue;
      const hypothetical = messageHypothetical || isHypothetical(lead);
      if (opensHypotheticalMessage(lead)) messageHypothetical = true;
      const draft = DRAFT_SENTENCE.test(core);

      let scope = observed.scope ?? markerScope;
      if (!scope && hypothetical) scope = { scope: "hypothetical", scope_id: `hypothetical@${message.id}` };
      if (!scope && draft) scope = { scope: "draft", scope_id: `draft@${message.id}` };
      messageScope = messageScope ?? scope;

      const ctx: SentenceContext = {
        message,
        scope,
        authority: attribution.authority ?? messageAuthority,
        classification,
        question: isQuestion(sentence),
        hypothetical,
        tentative: isTentative(core),
        historical: isHistorical(core),
        draft,
        changeWords: changeSignal(core).trigger !== null,
      };

      const keys: string[] = [];
      let replaced: string | null = null;
      if (!ctx.question) {
        for (const clause of splitClauses(core)) {
          for (const reading of readSlots(clause)) {
            const outcome = this.fact(reading, ctx);
            if (outcome) {
              keys.push(outcome.key);
              replaced = replaced ?? outcome.replacedValue ?? reading.oldValue;
            }
          }
        }
      }
      // A sentence that only opened or closed a scope is about the conversation, not the work.
      if (!observed.changed) this.item(core, ctx, keys, replaced);
    }

    // "OK, enough brainstorming, let's talk about real commitments" states nothing of its own: it is
    // the brainstorm's last word, and naming the brainstorm must not bring it back into view.
    const saysNothing = this.facts.length === firstFact && this.items.length === firstItem;
    if (!messageScope && closedScope && saysNothing) messageScope = closedScope;
    if (messageScope && messageScope.scope !== "global") {
      this.messageScopes.push({ id: message.id, scope: messageScope.scope, scope_id: messageScope.scope_id });
      if (message.role === "user") this.scopedTurn = { scope: messageScope, text: body };
    }
    const items = this.items.slice(firstItem);
    const values = this.facts.slice(firstFact).map((f) => f.value);
    this.pending = message.role === "user" && items.length ? { items, values } : null;
    const stated = this.facts
      .slice(firstFact)
      .filter((f) => f.scope === "global")
      .map((f) => f.value);
    this.statedTurn = message.role === "user" && stated.length ? { id: message.id, values: stated } : null;
  }

  // -------------------------------------------------------------------------------------------------
  // Facts

  private resolve(reading: SlotReading, scopeKey: string): FactTarget | null {
    const r = this.registry;
    if (reading.subject) {
      const key = r.resolveName(reading.subject);
      if (reading.attr && !r.isKnown(key)) {
        const partial = this.partial(reading.attr, reading.value, scopeKey);
        if (partial) return partial;
      }
      return { key, value: reading.value, via: "named" };
    }
    const kind = valueKind(reading.value);
    const found = (slot: Slot | undefined, via: FactTarget["via"]): FactTarget | null =>
      slot ? { key: slot.key, value: reading.value, via } : null;
    if (reading.oldValue) {
      const byOld = found(r.byValue(reading.oldValue, scopeKey), "old_value");
      if (byOld) return byOld;
    }
    if (reading.family) return found(r.byFamily(reading.family, scopeKey), "family");
    // "go back to X" when this run never saw X falls through to the other clues.
    const byHistory = found(r.byHistory(reading.value, scopeKey), "history");
    if (byHistory) return byHistory;
    const byOverlap = found(r.byOverlap(reading.value, scopeKey), "overlap");
    if (byOverlap) return byOverlap;
    if (kind !== "text") {
      const byKind = found(r.byKind(kind, scopeKey), "kind");
      if (byKind) return byKind;
    }
    if (!reading.weak) {
      const recent = r.latest(scopeKey);
      if (recent && (recent.kind === kind || kind === "text")) return found(recent, "recent");
    }
    return null;
  }

  /** "change the quantity to 1500": rewrite the count inside the newest slot that has one. */
  private partial(attr: string, value: string, scopeKey: string): FactTarget | null {
    const head = attr.split("_").pop() ?? attr;
    const kind = ATTR_KIND[head];
    if (!kind) return null;
    const slot = this.registry.containing(kind, scopeKey);
    if (!slot?.value) return null;
    const rewritten = replaceKind(slot.value, kind, value);
    return rewritten ? { key: slot.key, value: rewritten, via: "partial" } : null;
  }

  private fact(
    reading: SlotReading,
    ctx: SentenceContext,
  ): { key: string; replacedValue: string | null } | null {
    let scope = ctx.scope;
    if (!scope && (reading.modal || (reading.draft && !ctx.draft))) {
      scope = reading.modal
        ? { scope: "hypothetical", scope_id: `hypothetical@${ctx.message.id}` }
        : { scope: "draft", scope_id: `draft@${ctx.message.id}` };
    }
    const scopeKey = scopeKeyOf(scope);
    const target =
      this.resolve(reading, scopeKey) ??
      (reading.fallbackKey
        ? { key: this.registry.resolveName(reading.fallbackKey), value: reading.value, via: "named" as const }
        : null);
    if (!target) {
      this.dropped++;
      return null;
    }
    const { key, value } = target;
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
    return { key, replacedValue: supersedes ? previousValue : null };
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

  private retire(id: string, key: string, value: string): void {
    if (!this.retiredValues.some((r) => r.id === id && r.key === key && sameValue(r.value, value))) {
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

  // -------------------------------------------------------------------------------------------------
  // Items

  private item(core: string, ctx: SentenceContext, keys: string[], replacedValue: string | null): void {
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
    for (const item of this.input.existing ?? []) {
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

  /**
   * An assistant turn that acknowledges a scoped user turn or echoes it (a figure, or two content
   * words) speaks inside that scope: "Draft recorded: $85 per unit" is as much a draft as the draft.
   */
  private echoScope(message: ExtractionMessage): void {
    const turn = this.scopedTurn;
    this.scopedTurn = null;
    if (!turn) return;
    const content = cleanText(message.content ?? "");
    if (!content) return;
    const theirs = new Set(figures(turn.text));
    const words = new Set(contentWords(turn.text));
    const sharedWords = new Set(contentWords(content).filter((w) => words.has(w))).size;
    const echoes =
      isAcknowledgement(content) || figures(content).some((f) => theirs.has(f)) || sharedWords >= 2;
    if (!echoes) return;
    this.messageScopes.push({ id: message.id, scope: turn.scope.scope, scope_id: turn.scope.scope_id });
  }

  /** An assistant turn repeating a value the user turn before it stated restates that turn. */
  private echoValues(message: ExtractionMessage): void {
    const turn = this.statedTurn;
    this.statedTurn = null;
    if (!turn) return;
    const lower = cleanText(message.content ?? "").toLowerCase();
    if (turn.values.some((v) => v.length >= 2 && lower.includes(v.toLowerCase()))) {
      this.messageEchoes.push({ id: message.id, of: turn.id });
    }
  }

  /** An assistant turn that acknowledges or repeats the previous user turn corroborates its items. */
  private confirm(message: ExtractionMessage): void {
    const pending = this.pending;
    this.pending = null;
    if (!pending) return;
    const content = cleanText(message.content ?? "");
    const lower = content.toLowerCase();
    const repeats = pending.values.some((v) => v.length >= 2 && lower.includes(v.toLowerCase()));
    if (!repeats && !isAcknowledgement(content)) return;
    for (const item of pending.items) {
      if (!item.refs.includes(message.id)) item.refs.push(message.id);
      if (item.confidence === "medium") item.confidence = "high";
    }
  }
}

/** Pure, synchronous, deterministic: the same input always gives the same output. */
export function extractFromMessages(input: ExtractionInput): ExtractionOutput {
  const run = new Run(input);
  for (const message of input.messages) run.message(message);
  return {
    items: run.items,
    facts: run.facts,
    dropped: run.dropped,
    openScope: run.openScope(),
    messageScopes: run.messageScopes,
    messageEchoes: run.messageEchoes,
    retiredValues: run.retiredValues,
  };
}

export class RuleExtractor implements Extractor {
  readonly name = "rules";

  async extract(input: ExtractionInput): Promise<ExtractionOutput> {
    return extractFromMessages(input);
  }
}
