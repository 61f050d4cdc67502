import type { OpenScope } from "./scope-tracker";

/**
 * The scope a whole turn is spoken in, weighed from its sentences. A scope the conversation has open
 * (an exploratory stretch, a marker) covers the turn. A sentence's own cue ("maybe", "would be", a bare
 * "if") scopes that sentence's facts and no more: the turn goes out of view only when every sentence
 * of substance in it is hypothetical, one of them frames the supposition explicitly ("what if",
 * "hypothetically", a "Draft:" label), and it supposes something that could pass for real state (a
 * value it states, or a figure). Otherwise the turn stays, its hypothetical facts scoped on their own.
 */
export class TurnScope {
  private shared: OpenScope | null = null;
  private own: OpenScope | null = null;
  private sentences = 0;
  private scopedSentences = 0;
  private framed = false;

  /**
   * One sentence read: `shared` is the conversation's or marker's scope over it, `scope` the scope its
   * facts got; `substantive` whether it says enough to count (a short aside does not).
   */
  sentence(s: { shared: OpenScope | null; scope: OpenScope | null; framed: boolean; substantive: boolean }) {
    this.shared = this.shared ?? s.shared;
    if (!s.shared && s.scope) this.own = this.own ?? s.scope;
    this.framed = this.framed || s.framed;
    if (!s.substantive) return;
    this.sentences++;
    if (s.scope) this.scopedSentences++;
  }

  /** The turn's scope, once all its sentences are read; `supposesValue`: it states a value or a figure. */
  scope(supposesValue: boolean): OpenScope | null {
    return this.shared ?? this.supposition(supposesValue);
  }

  /** The turn's own supposition, when it is one by itself (no scope of the conversation covers it). */
  supposition(supposesValue: boolean): OpenScope | null {
    if (this.shared) return null;
    const wholly = this.sentences > 0 && this.scopedSentences === this.sentences;
    return wholly && this.framed && supposesValue ? this.own : null;
  }
}

/** Fewer words than this, and no value stated, is an aside ("Thoughts?", "Quick idea."). */
const SUBSTANTIVE_WORDS = 3;

export function substantive(core: string, statesValue: boolean): boolean {
  return statesValue || core.split(/\s+/).filter(Boolean).length >= SUBSTANTIVE_WORDS;
}
