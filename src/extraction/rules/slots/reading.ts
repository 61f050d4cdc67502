import { cleanValue } from "../values";

/**
 * Reads slot/value pairs from one clause. A reading names its slot by a subject ("The project budget
 * is $50,000" → project_budget) or, for corrections that name no slot ("Make that $150,000", "Let's
 * try list-based UI instead"), leaves the subject null and says how to find the slot: by the value it
 * replaces, by a value the slot held before, by a slot family ("send it to …" → a destination), or by
 * the kind of value. The extractor resolves those against the conversation's slots.
 */

export type ReadingKind =
  | "secret"
  | "label"
  | "copula"
  | "status"
  | "decision"
  | "choice"
  | "tentative"
  | "preference"
  | "schedule"
  | "destination"
  | "finalize"
  | "money_noun"
  | "change";

export interface SlotReading {
  kind: ReadingKind;
  /** Key from the clause's own subject, before resolution; null when the clause names no slot. */
  subject: string | null;
  value: string;
  /** A value the clause says is being replaced ("instead of Redis", "Your $200K is now …"). */
  oldValue: string | null;
  /** The wording itself is change language ("make that", "change it to", "switch to"). */
  change: boolean;
  /** "go back to X": X is a value some slot held before. */
  goBack: boolean;
  /** For pronoun objects ("send it to …"), the family of slot keys to look in. */
  family: string | null;
  /** The attribute a partial update names ("change the quantity to 1500" → quantity). */
  attr: string | null;
  /** Talks about a past value ("The original date was …"). */
  historical: boolean;
  /** A modal copula ("would be", "could be"): hypothetical. */
  modal: boolean;
  /** Labelled as a draft ("Draft pricing: $85 per unit"). */
  draft: boolean;
  /** Hedged ("We're thinking …"). */
  tentative: boolean;
  /**
   * Change wording that also has everyday uses ("move to", "change to"): without other evidence it
   * must not pick a slot by recency alone.
   */
  weak: boolean;
  /** Key to use when a subjectless reading finds no slot ("We're thinking pilot program" → plan). */
  fallbackKey: string | null;
  /**
   * Names no slot and carries no clue but a term ("it's net 15"): it changes the slot whose value
   * holds the same term with another number, or nothing.
   */
  termOnly: boolean;
  /**
   * The subject names whose attribute it is ("sister_diet", the speaker's `diet`): another holder's
   * slot of the same attribute is another slot, so the key is used as it is.
   */
  exact: boolean;
  /** A stand-in: `value` is the person taking the place of `oldValue` in the slot that names them. */
  standIn: boolean;
}

export function reading(
  kind: ReadingKind,
  subject: string | null,
  value: string,
  extra: Partial<SlotReading> = {},
): SlotReading {
  return {
    kind,
    subject,
    value,
    oldValue: null,
    change: false,
    goBack: false,
    family: null,
    attr: null,
    historical: false,
    modal: false,
    draft: false,
    tentative: false,
    weak: false,
    fallbackKey: null,
    termOnly: false,
    exact: false,
    standIn: false,
    ...extra,
  };
}

/** A captured group as a slot value: null when the group did not match or cleans to nothing. */
export function value(raw: string | undefined): string | null {
  return raw === undefined ? null : cleanValue(raw);
}
