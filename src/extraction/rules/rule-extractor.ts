import { readMarkers } from "../../facts/markers";
import type {
  CarriedScope,
  ExtractionInput,
  ExtractionMessage,
  ExtractionOutput,
  Extractor,
  MessageScope,
} from "../../items/types";
import { AssistantTurns, repliesTo } from "./assistant-turns";
import { classifyMessage, classifyText, strictest } from "./classification";
import { FactLedger } from "./fact-ledger";
import { ItemLedger } from "./item-ledger";
import { RunningFigures } from "./running-figures";
import { type OpenScope, ScopeTracker } from "./scope-tracker";
import { type SentenceContext, scopeKeyOf, sentenceScope } from "./sentence-context";
import { splitClauses, splitSentences } from "./sentences";
import {
  changeSignal,
  framesHypothetical,
  isAcknowledgement,
  isHistorical,
  isHypothetical,
  isQuestion,
  isTentative,
  proposedTerms,
  supposedStatement,
} from "./signals";
import { SlotRegistry } from "./slot-registry";
import { readSlots } from "./slots/read-slots";
import { readAttribution, readLeadingTags, speakerAuthority } from "./speaker";
import { SuppositionReach } from "./supposition-reach";
import { cleanText, contentWords, stripAdverbial, stripFillers, withoutCode } from "./text";
import { substantive, TurnScope } from "./turn-scope";
import { DATE } from "./values";

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
 * Guardrails: questions yield no facts (a question framing a supposition, "What if we moved it to
 * June 3?", only facts of its own scope); hypothetical, hedged-and-conflicting, draft and scoped facts
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

const DRAFT_SENTENCE = /^draft\b/i;
/** Words past which an assistant turn is an answer of its own rather than an echo of what was said. */
const ECHO_WORDS = 40;
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
/** A figure, a time or a date: what a supposition could pass off as real state. */
const STATES_VALUE = new RegExp(String.raw`\d|${DATE.source}`, "i");
const STATES_VALUE_ALL = new RegExp(String.raw`[$\u20ac\u00a3]?\d[\w:.,/-]*|${DATE.source}`, "gi");
/**
 * Words an acknowledgement confirms with. "Sounds good, September 9 it is." says nothing but its date;
 * "Noted, the glaze order arrives November 14." names another thing that date could be.
 */
const CONFIRMING = new Set(
  "sounds good great perfect noted got ok okay sure done confirmed locked set booked scheduled works fine alright right then is it that's thats understood will do cool".split(
    " ",
  ),
);
/** Whether a text's words, past its figures and dates, only confirm. */
const onlyConfirms = (text: string) =>
  contentWords(text.replace(STATES_VALUE_ALL, " ")).every((w) => CONFIRMING.has(w));
/** Classification and scope markers, read from the whole message and then cut from its sentences. */
const MARKER_BRACKETS =
  /\[(?:RESTRICTED|CONFIDENTIAL|HIGHLY[ _]RESTRICTED|SCOPE|INTERNAL|PUBLIC|SECRET|PRIVATE)\b[^\]]*\]\s*:?/gi;

/** One extraction run: reads the messages in order into its fact and item ledgers. */
class Run {
  private readonly tracker: ScopeTracker;
  readonly facts: FactLedger;
  readonly items: ItemLedger;
  readonly assistant = new AssistantTurns();
  private readonly running = new RunningFigures();
  private readonly registry: SlotRegistry;
  /** Assistant turns repeating a slot's current value (ExtractionOutput.echoedValues). */
  readonly echoedValues: { id: string; key: string; value: string }[] = [];
  /** Messages spoken inside a non-global scope, so the transcript tail can be gated like facts. */
  readonly messageScopes: MessageScope[] = [];
  /** Scopes a turn adopted: what they said is current from that turn on. */
  readonly adoptedScopes: string[] = [];
  /** The last user turn, when it proposed something and stayed in view, for the reply to it. */
  private proposalTurn: string | null = null;

  constructor(input: ExtractionInput) {
    const registry = new SlotRegistry(input.existingFacts ?? []);
    this.registry = registry;
    if (input.openScope) registry.seed(input.openScopeFacts ?? [], scopeKeyOf(input.openScope));
    this.facts = new FactLedger(registry);
    this.tracker = new ScopeTracker(input.openScope);
    this.items = new ItemLedger(input.existing ?? []);
  }

  openScope(): CarriedScope | null {
    return this.tracker.carried();
  }

  message(message: ExtractionMessage): void {
    if (message.role === "assistant") {
      const echoed = this.assistant.assistantTurn(message);
      if (echoed) this.messageScopes.push(echoed);
      const content = cleanText(message.content ?? "");
      if (this.proposalTurn !== null && repliesTo(this.proposalTurn, content))
        this.tracker.replied(message.id);
      if (content.trimEnd().endsWith("?")) this.tracker.asked();
      this.proposalTurn = null;
      // An echo inherits the status of the value it repeats, whichever turn stated it. Only a short
      // turn is an echo: a long answer that names a value in passing says much else, and it leaves
      // the context only where it quotes a dead claim (masked there), never whole.
      if (words(content) <= ECHO_WORDS) {
        // "…comes to about $636 a month" after "roughly $703 a month": its own earlier result is retired.
        for (const phrase of this.running.read(content, echoed !== null))
          this.facts.retireSaid(message.id, phrase);
        const acknowledgement = isAcknowledgement(content) && onlyConfirms(content);
        for (const slot of this.registry.repeatedIn(content, acknowledgement))
          this.echoedValues.push({ id: message.id, ...slot });
      }
      return;
    }
    this.proposalTurn = null;
    const text = cleanText(message.content ?? "");
    const reply = message.role === "user" && text ? this.assistant.correctedBy(text) : null;
    this.assistant.forget();
    if (message.role !== "user" && message.role !== "system") return;
    if (!text) return;
    for (const phrase of reply?.corrected ?? []) this.facts.retireSaid(message.id, phrase);
    // "Yes, the 7th" to "…the deadline moves to the 7th?": the user states the slot the question named,
    // read as one more sentence of the turn, after its own.
    const affirmedKey = reply?.affirmed ? this.registry.namedIn(reply.affirmed.part) : null;
    const affirmed =
      affirmedKey && reply?.affirmed
        ? [`The ${affirmedKey.replace(/_/g, " ")} is ${reply.affirmed.value}.`]
        : [];

    const tags = readLeadingTags(text);
    const messageAuthority = tags.authority ?? speakerAuthority(message.speaker);
    const handling = classifyMessage(text);
    const markers = readMarkers(text);
    const markerScope: OpenScope | null = markers.scope
      ? { scope: markers.scope, scope_id: markers.scopeLabel ?? null }
      : null;
    // Statements are read from the prose; the whole text still decides the message's handling above.
    const raw = message.content ?? "";
    const prose = withoutCode(raw);
    const body = (prose === raw ? tags.body : readLeadingTags(cleanText(prose)).body)
      .replace(MARKER_BRACKETS, " ")
      .trim();
    const facts = this.facts.facts;
    const items = this.items.items;
    const firstFact = facts.length;
    const firstItem = items.length;
    const supposition = new SuppositionReach();
    const turnScope = new TurnScope();
    let closedScope: OpenScope | null = null;
    /** The proposal a sentence of this turn made, and what it named, for the sentences after it. */
    let proposal: (OpenScope & { terms: string[] }) | null = null;

    const all = splitSentences(body);
    // A pasted record set states nothing: its lines stay in the transcript (searchable by passage).
    const sentences = isRecordSet(all) ? [] : [...all, ...affirmed];
    this.tracker.begin(message.ts, all[0] ?? "");
    this.tracker.frame(sentences, body, message.id);
    for (const sentence of sentences) {
      const observed = this.tracker.observe(sentence, body, message.id);
      closedScope = closedScope ?? observed.closed;
      const lead = stripFillers(sentence);
      const attribution = readAttribution(lead);
      const core = stripFillers(stripAdverbial(attribution.rest));
      if (!core) continue;
      // "Suppose we try a blue glaze. Then …" supposes twice; "… The kiln is booked for Friday." once.
      const hypothetical = supposition.next(sentence, lead) || isHypothetical(lead);
      const draft = DRAFT_SENTENCE.test(core);

      const scope = sentenceScope(observed.scope, markerScope, hypothetical, draft, message.id);

      const ctx: SentenceContext = {
        message,
        scope,
        authority: attribution.authority ?? messageAuthority,
        // The message's handling covers each statement; a secret or a sensitive topic only its own.
        classification: strictest(handling, classifyText(sentence)),
        question: isQuestion(sentence),
        hypothetical,
        tentative: isTentative(core),
        historical: isHistorical(core),
        draft,
        changeWords: changeSignal(core).trigger !== null,
        proposal,
      };
      // "No, we're keeping the XLE": the proposal, and the reply about it, leave the context.
      if (observed.rejected) {
        const { scope: kind, scope_id, shown } = observed.rejected;
        for (const id of shown) this.messageScopes.push({ id, scope: kind, scope_id });
      }
      if (observed.adopted) {
        this.facts.adopt(observed.adopted, ctx);
        if (observed.adopted.scope_id) this.adoptedScopes.push(observed.adopted.scope_id);
      }

      const keys: string[] = [];
      let replaced: string | null = null;
      // A question states nothing, unless it frames a supposition ("What if we moved the launch to
      // June 3?"): what it supposes is kept in its own scope, for a turn that may take it up.
      // A framing adverb is a filler to the slot rules ("Hypothetically, the deposit could be $900"),
      // but it still frames the sentence.
      const framed = framesHypothetical(lead) || framesHypothetical(sentence);
      const supposing = hypothetical && framed;
      if (!ctx.question || supposing) {
        for (const clause of splitClauses(supposing ? supposedStatement(core) : core)) {
          for (const reading of readSlots(clause)) {
            const outcome = this.facts.record(reading, ctx);
            if (outcome) {
              keys.push(outcome.key);
              replaced = replaced ?? outcome.replacedValue ?? reading.oldValue;
            }
          }
        }
      }
      // A sentence that only opened or closed a scope is about the conversation, not the work.
      if (!observed.changed) this.items.add(core, ctx, keys, replaced);
      if (!proposal && scope?.scope === "hypothetical" && !observed.scope && framed) {
        proposal = { ...scope, terms: proposedTerms(core) };
      }
      turnScope.sentence({
        shared: observed.scope ?? markerScope,
        scope,
        framed: framed || draft,
        substantive: !observed.changed && substantive(core, keys.length > 0),
      });
    }

    // "OK, enough brainstorming, let's talk about real commitments" states nothing of its own: it is
    // the brainstorm's last word, and naming the brainstorm must not bring it back into view.
    const saysNothing = facts.length === firstFact && items.length === firstItem;
    const supposesValue = facts.length > firstFact || STATES_VALUE.test(body);
    let messageScope = turnScope.scope(supposesValue);
    // A turn that proposed and priced something ("Would it be crazy to drop to the LE? It's $33,400.")
    // stays in view, but what it supposed may still be taken up by the next turns.
    const proposalStated = proposal && facts.slice(firstFact).some((f) => f.scope_id === proposal?.scope_id);
    const wholly = turnScope.supposition(supposesValue);
    // "The deposit could be $900 if we pay early.": a hedged value the next turn may still take up
    // ("let's go with that"), though the turn supposed nothing as a whole and no verdict hides it.
    const hedgeId = `hypothetical@${message.id}`;
    const hedged: OpenScope | null =
      !messageScope && facts.slice(firstFact).some((f) => f.scope_id === hedgeId)
        ? { scope: "hypothetical", scope_id: hedgeId }
        : null;
    const supposed = wholly ?? (proposalStated ? proposal : null) ?? hedged;
    // A proposal that stays in view leaves it only when a later turn turns it down.
    // A turn that went on to another matter stays: its statements are real whatever the verdict.
    const shown =
      supposed && supposed !== hedged && !wholly && !messageScope && !supposition.movedOn
        ? [message.id]
        : undefined;
    this.tracker.finish(
      message.ts,
      message.id,
      supposed && { ...supposed, terms: proposal?.terms, shown },
      body,
    );
    if (shown) this.proposalTurn = body;
    if (!messageScope && closedScope && saysNothing) messageScope = closedScope;
    const scoped = messageScope && messageScope.scope !== "global" ? messageScope : null;
    if (scoped) this.messageScopes.push({ id: message.id, scope: scoped.scope, scope_id: scoped.scope_id });
    if (message.role !== "user") return;
    this.assistant.userTurn(message.id, {
      items: items.slice(firstItem),
      values: facts.slice(firstFact).map((f) => f.value),
      stated: facts
        .slice(firstFact)
        .filter((f) => f.scope === "global")
        .map((f) => f.value),
      scope: scoped,
      text: body,
    });
  }
}

/**
 * More slot values than a person states in one message. A turn that reads as more is a pasted record
 * set (a log, a table, a configuration dump; "Log line 7: worker 3 processed batch 21" a thousand
 * times over), not a set of statements: none of its lines becomes a fact or an item, each would be a
 * fact of its own, and later lines of the same shape would "supersede" earlier ones. The message stays
 * in the transcript, found by its passages; values meant as state can be written as facts.
 */
export const MAX_STATEMENTS_PER_MESSAGE = 24;

/** Whether the sentences read as more than MAX_STATEMENTS_PER_MESSAGE slot values (counting stops there). */
function isRecordSet(sentences: readonly string[]): boolean {
  if (sentences.length <= MAX_STATEMENTS_PER_MESSAGE / 4) return false;
  let values = 0;
  for (const sentence of sentences) {
    for (const clause of splitClauses(sentence)) {
      values += readSlots(clause).length;
      if (values > MAX_STATEMENTS_PER_MESSAGE) return true;
    }
  }
  return false;
}

/** Pure, synchronous, deterministic: the same input always gives the same output. */
export function extractFromMessages(input: ExtractionInput): ExtractionOutput {
  const run = new Run(input);
  for (const message of input.messages) run.message(message);
  return {
    items: run.items.items,
    facts: run.facts.facts,
    dropped: run.facts.dropped,
    openScope: run.openScope(),
    messageScopes: run.messageScopes,
    adoptedScopes: run.adoptedScopes,
    messageEchoes: run.assistant.messageEchoes,
    retiredValues: run.facts.retiredValues,
    echoedValues: run.echoedValues,
  };
}

export class RuleExtractor implements Extractor {
  readonly name = "rules";

  async extract(input: ExtractionInput): Promise<ExtractionOutput> {
    return extractFromMessages(input);
  }
}
