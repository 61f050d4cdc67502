import type { CarriedScope, ItemScope } from "../../items/types";
import { adoptsByName, DEFERRALS, defers, inferred, overBefore, verdictOn } from "./scope-lifetime";
import { snake } from "./text";

/**
 * Conversation scope (seed 000 scope tracking). A user can open a stretch of conversation that is not
 * about real commitments ("Let's do some contingency planning. This is just exploratory.") and close
 * it later ("OK, enough contingency planning, let's talk about real commitments."). Everything said
 * in between belongs to that scope and carries its scope_id; an unclosed scope is handed to the next
 * extraction run, and ends by itself when nobody closes it (scope-lifetime.ts).
 *
 * Openers are meta-statements about the conversation, not topics: "brainstorm" opens a scope only as
 * "let's brainstorm" / "brainstorming session", "sandbox" only as "sandbox mode/session" or with
 * "let's". A one-off "What if …?" makes its own message hypothetical (turn-scope.ts) but opens nothing
 * lasting; the next turn may still adopt it.
 *
 * scope_id is `<label>@<message id>`: the label names the activity ("pricing-exploration") and the
 * message id keeps two separate brainstorms apart.
 */
export interface OpenScope {
  scope: ItemScope;
  scope_id: string | null;
}

/**
 * Openers need a statement about the conversation itself, not a topic word: "this is just
 * exploratory", "let's brainstorm", "let's do some contingency planning". "Let's explore the old town"
 * or "the rough estimate is three weeks" open nothing.
 */
const META_HYPOTHETICAL =
  /\b(?:this|it|that|all this|everything here)(?:'s| is| are) (?:just |only |purely |all |merely |strictly )?(?:exploratory|hypothetical|speculative|theoretical|a thought experiment|brainstorming|not (?:a )?(?:commitment|committed|binding|final))\b|\bjust (?:exploring|brainstorming|spitballing|thinking out loud|speculating|hypothesizing)(?=\s*(?:[.,;:!?)]|$|here\b|for now\b|(?:some |a few |the )?(?:ideas|options|possibilities|alternatives|scenarios)\b))|\bjust playing with (?:numbers|ideas)\b|\bhypothetically speaking\b|\bfor the sake of argument\b|\bthought experiment\b|\bnothing (?:here )?is (?:committed|final|binding)\b/i;
/** A proposal to the other speaker ("let's", "time for"), the frame an activity opener needs. */
const PROPOSAL = String.raw`\b(?:let'?s|let us|time (?:to|for)|how about)\s+`;
/** Activities that are suppositions by nature, proposed: "let's do some contingency planning". */
const ACTIVITY_HYPOTHETICAL = new RegExp(
  String.raw`${PROPOSAL}(?:(?:do|have|run|start|try|play)\s+)?(?:(?:a|an|some|the|our)\s+)?(?:[a-z'-]+\s+){0,3}?(?:contingency planning|scenario planning|what-if (?:scenario|analysis|exercise|session|planning)s?|rough estimat(?:e|es|ion|ions)|estimat(?:e|es|ion|ions)|exploration|back[- ]of[- ](?:the[- ])?envelope|brainstorm(?:ing)?(?: session)?|sandbox (?:mode|session|exercise|environment)|thought experiment|war[- ]gam(?:e|es|ing))\b`,
  "i",
);
/** Verbs that are suppositions by nature, proposed: "let's brainstorm", "let's imagine". */
const LETS_HYPOTHETICAL = new RegExp(
  String.raw`${PROPOSAL}(?:just\s+)?(?:brainstorm\w*|speculat\w*|imagin\w*|pretend|hypothesi[sz]\w*|play (?:it |this |that )?out|war[- ]gam\w*|spitball\w*)\b`,
  "i",
);
const DRAFT_OPEN =
  /\b(?:let'?s|let us|we (?:could|can|should)|i (?:want|'d like) to|time to)\s+(?:start\s+(?:a\s+)?|do\s+(?:a|an|some)\s+|work on\s+(?:a|the)\s+)?(?:[a-z'-]+\s+){0,2}?draft(?:ing)?\b|\b(?:this is|it's) (?:just |only )?a (?:rough )?draft\b|\bdraft mode\b|^drafting\b/i;
const TASK_OPEN =
  /\b(?:for this task only|only for this task|just for this task|for the (?:duration|scope) of this task|task[- ]scoped|scoped to this task)\b/i;
const SESSION_OPEN =
  /\b(?:for this session only|only for this session|just for this session|for the rest of (?:this|the) session|session[- ]only)\b/i;

const CLOSE_ENOUGH =
  /(^|\bthat'?s |\bthat is |\bok(?:ay)?,? )enough (?:of )?(?:the |this |that |all the |our )?((?:[a-z'-]+ ){0,3}?[a-z'-]*)\s*(?:for now|for today|,|\.|!|$)/i;
const CLOSE_GENERIC =
  /\bback to (?:reality|the real world|real life|real(?:ity)?|business|the actual|our actual|actual|what'?s real)\b|\b(?:let'?s|time to|now) (?:talk about|get back to|focus on|return to|look at) (?:the |our )?(?:real|actual|firm|committed|confirmed)\b|\b(?:real|actual|firm) commitments\b|\bin reality\b|\bfor real now\b|\b(?:end|out) of (?:the |this )?(?:brainstorm|hypothetical|exercise|sandbox|what-if|exploration|scenario)\b|\b(?:done|finished) (?:with )?(?:the |this |our )?(?:brainstorm\w*|explor\w*|hypothetical\w*|exercise|sandbox|draft\w*|estimat\w*|speculat\w*|contingency planning|scenario\w*)\b|\b(?:stop|quit) (?:brainstorming|exploring|speculating|hypothesizing|estimating)\b|\b(?:forget|scratch|drop|ignore) (?:all )?(?:that|the|those|these) (?:hypothetical\w*|brainstorm\w*|what-ifs?|ideas|scenarios?|estimates)\b|\bseriously now\b/i;
const CLOSE_DRAFT =
  /\b(?:finali[sz]e[ds]?|final version|officially|signed off|publish(?:ed)?|make it official|ready to send)\b/i;
const CLOSE_TASK =
  /\b(?:task|ticket) (?:is )?(?:done|complete|completed|finished|closed)\b|\bback to (?:the )?(?:main|general|normal)\b/i;
const SCOPE_WORDS =
  /brainstorm|explor|estimat|contingenc|planning|scenario|what-if|hypothetic|sandbox|draft|speculat|session|exercise|spitball|pricing|numbers|ideas/i;

const LABEL =
  /\b(?:let'?s|let us|time to)\s+(?:do|have|run|start|try|play)\s+(?:a|an|some|the|our)\s+((?:[a-z0-9'-]+\s+){0,3}[a-z0-9'-]+)/i;
const LABEL_TRIGGER =
  /\b(contingency planning|scenario planning|rough estimation|what-if \w+|brainstorm\w*|explor\w*|sandbox|draft\w*|estimat\w*|speculat\w*|thought experiment)\b/i;

function labelOf(message: string, fallback: string): string {
  const explicit = LABEL.exec(message)?.[1];
  const trigger = LABEL_TRIGGER.exec(message)?.[1];
  const raw = (explicit ?? trigger ?? fallback).replace(/[.,!?;:]+$/, "");
  return snake(raw).replace(/_/g, "-").slice(0, 60) || fallback;
}

/** The kind of scope a sentence opens, or null. `message` is the whole message, for the label. */
export function detectOpen(sentence: string, message: string): { scope: ItemScope; label: string } | null {
  const hypothetical =
    META_HYPOTHETICAL.test(sentence) ||
    ACTIVITY_HYPOTHETICAL.test(sentence) ||
    LETS_HYPOTHETICAL.test(sentence);
  const draft = DRAFT_OPEN.test(sentence) || (hypothetical && /\bdraft(?:ing)?\b/i.test(message));
  if (draft) return { scope: "draft", label: labelOf(message, "draft") };
  if (hypothetical) return { scope: "hypothetical", label: labelOf(message, "hypothetical") };
  if (TASK_OPEN.test(sentence)) return { scope: "task", label: labelOf(message, "task") };
  if (SESSION_OPEN.test(sentence)) return { scope: "session", label: labelOf(message, "session") };
  return null;
}

/** True when the sentence ends the open scope. */
export function detectClose(sentence: string, open: OpenScope): boolean {
  if (CLOSE_GENERIC.test(sentence)) return true;
  const enough = CLOSE_ENOUGH.exec(sentence);
  if (enough) {
    const framed = enough[1] !== undefined;
    const what = (enough[2] ?? "").trim();
    const label = (open.scope_id ?? "").split("@")[0] ?? "";
    const labelWords = label.split("-").filter((w) => w.length > 3);
    if (!what) {
      if (framed) return true;
    } else if (SCOPE_WORDS.test(what) || labelWords.some((w) => what.toLowerCase().includes(w))) {
      return true;
    }
  }
  if (open.scope === "draft" && CLOSE_DRAFT.test(sentence)) return true;
  if ((open.scope === "task" || open.scope === "session") && CLOSE_TASK.test(sentence)) return true;
  return false;
}

/**
 * Tracks the open scope across the sentences of a run. Per user turn: `begin`, then `frame`, then
 * `observe` once per sentence in order, then `finish`. `observe` returns the scope the sentence belongs
 * to: a closing sentence already belongs to the global scope, an opening sentence already to the new
 * scope. An inferred scope also ends by itself (scope-lifetime.ts).
 */
export class ScopeTracker {
  private open: CarriedScope | null = null;
  /** The last turn's own supposition, which the next user turn may adopt or turn down. */
  private proposal: CarriedScope | null = null;

  constructor(initial: CarriedScope | null) {
    if (!initial || initial.scope === "global") return;
    if (initial.proposal) this.proposal = { ...initial };
    else this.open = { ...initial };
  }

  current(): OpenScope | null {
    return this.open ? { scope: this.open.scope, scope_id: this.open.scope_id } : null;
  }

  /** What the next run starts from: the open scope, or the last turn's supposition. */
  carried(): CarriedScope | null {
    const carried = this.open ?? this.proposal;
    return carried ? { ...carried } : null;
  }

  /** A user turn starts: an inferred scope it comes after the end of is over. */
  begin(ts: string, opening: string): void {
    if (this.open && overBefore(this.open, ts, opening)) this.open = null;
  }

  /**
   * Called once per message before its sentences: a retrospective framing anywhere in the message
   * ("Let's do a quick session. This is just exploratory.") covers the whole message, so the scope
   * opens at its first sentence. Forward-looking openers ("let's brainstorm") open where they stand.
   */
  frame(sentences: string[], message: string, messageId: string): void {
    if (this.open) return;
    for (const sentence of sentences) {
      if (CLOSE_GENERIC.test(sentence)) return;
      if (META_HYPOTHETICAL.test(sentence)) {
        const opened = detectOpen(sentence, message);
        if (opened) this.open = { scope: opened.scope, scope_id: `${opened.label}@${messageId}` };
        return;
      }
    }
  }

  /**
   * Returns the sentence's scope, whether the sentence only opened or closed a scope, the scope it
   * closed, if any, and the one it adopted ("let's go with that"), if any.
   */
  observe(
    sentence: string,
    message: string,
    messageId: string,
  ): {
    scope: OpenScope | null;
    changed: boolean;
    closed: OpenScope | null;
    adopted: OpenScope | null;
    rejected: (OpenScope & { shown: string[] }) | null;
  } {
    let changed = false;
    let closed: OpenScope | null = null;
    let adopted: OpenScope | null = null;
    let rejected: (OpenScope & { shown: string[] }) | null = null;
    const supposition = this.open && inferred(this.open) ? this.open : this.proposal;
    const named = supposition === this.proposal && adoptsByName(sentence, this.proposal?.terms ?? []);
    let pointed = supposition ? verdictOn(sentence) : null;
    // "Want me to email the landlord?" "Yes, let's do that.": the yes answers the assistant.
    if (pointed === "adopted" && supposition === this.proposal && this.proposal?.asked) pointed = null;
    const verdict = supposition ? (pointed ?? (named ? "adopted" : null)) : null;
    if (supposition && verdict) {
      if (verdict === "adopted") adopted = { scope: supposition.scope, scope_id: supposition.scope_id };
      else if (supposition.shown?.length)
        rejected = { scope: supposition.scope, scope_id: supposition.scope_id, shown: supposition.shown };
      if (supposition === this.open) closed = this.current();
      this.open = supposition === this.open ? null : this.open;
      this.proposal = null;
      changed = true;
    } else if (this.open && detectClose(sentence, this.open)) {
      closed = this.current();
      this.open = null;
      changed = true;
    }
    const opened = detectOpen(sentence, message);
    if (opened && !changed) {
      if (!this.open || this.open.scope !== opened.scope) {
        this.open = { scope: opened.scope, scope_id: `${opened.label}@${messageId}` };
      }
      changed = true;
    }
    return { scope: this.current(), changed, closed, adopted, rejected };
  }

  /** The assistant asked something while a proposal waits: pointing back now answers the assistant. */
  asked(): void {
    if (this.proposal) this.proposal = { ...this.proposal, asked: true };
  }

  /** An assistant turn answered the proposal still in view: it leaves with the proposal if turned down. */
  replied(messageId: string): void {
    if (this.proposal?.shown)
      this.proposal = { ...this.proposal, shown: [...this.proposal.shown, messageId] };
  }

  /**
   * A user turn ends: the open scope counts it (unless the turn opened it) and dates it; a turn that
   * supposed a value on its own (`supposed`, its own scope) is what the next turn may adopt.
   */
  finish(
    ts: string,
    messageId: string,
    supposed: (OpenScope & { terms?: string[]; shown?: string[] }) | null,
    text = "",
  ): void {
    if (this.open) {
      const openedHere = this.open.scope_id?.endsWith(`@${messageId}`) ?? false;
      this.open = { ...this.open, last_ts: ts, turns: (this.open.turns ?? 0) + (openedHere ? 0 : 1) };
    }
    // "Let me sit on it": a turn that only puts the decision off leaves the proposal to the next one.
    const pending = this.proposal;
    if (!supposed && pending && !this.open && (pending.deferred ?? 0) < DEFERRALS && defers(text)) {
      this.proposal = { ...pending, deferred: (pending.deferred ?? 0) + 1 };
      return;
    }
    this.proposal = supposed && !this.open ? { ...supposed, last_ts: ts, proposal: true } : null;
  }
}
