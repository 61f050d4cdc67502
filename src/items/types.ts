/**
 * Structured state (seed 002): typed items extracted from conversation, and the slot facts that
 * extraction produces alongside them. Shared by the extractors, the reconciler and the renderer.
 */
export const STATE_ITEM_TYPES = ["decision", "constraint", "action", "question", "risk"] as const;
export type StateItemType = (typeof STATE_ITEM_TYPES)[number];

export const CONFIDENCES = ["low", "medium", "high"] as const;
export type Confidence = (typeof CONFIDENCES)[number];

export type ItemScope = "global" | "task" | "hypothetical" | "draft" | "session";
export type ItemClassification = "public" | "restricted" | "confidential" | "highly_restricted";

export interface SupersessionEvidence {
  trigger: string;
  ref_msg_id: string;
  candidate_uid: string;
}

export interface StateItem {
  uid: string;
  text: string;
  status: string;
  type_tag: StateItemType;
  topic_tags: string[];
  /** Source message ids: the first and the newest, ITEM_REFS_KEPT at most (src/items/item-refs.ts). */
  refs: string[];
  /** How many source messages there were, once more than `refs` keeps; absent until then. */
  ref_count?: number;
  confidence: Confidence;
  replaced_by: string | null;
  supersession_evidence: SupersessionEvidence | null;
  conflict: boolean;
  pinned: boolean;
  source: "rules" | "llm";
  created_at: string;
  last_seen_at: string;
  scope: ItemScope;
  scope_id: string | null;
  classification: ItemClassification;
  allow_roles: string[];
}

/** What an extractor proposes; the deterministic reconciler decides what happens to it. */
export interface CandidateItem {
  type_tag: StateItemType;
  text: string;
  status: string;
  confidence: Confidence;
  topic_tags: string[];
  refs: string[];
  /** uid of an existing item this one explicitly replaces, or null. */
  supersedes: string | null;
  conflict: boolean;
  scope: ItemScope;
  scope_id: string | null;
  classification: ItemClassification;
  allow_roles: string[];
}

/** A key/value fact read from a message, e.g. "The project budget is $50,000" → project_budget. */
export interface ExtractedFact {
  key: string;
  value: string;
  /** The message it came from; its ts is the fact's ts. */
  ref: string;
  ts: string;
  /** Key of the fact this one replaces, when the message signals a change or the slot conflicts. */
  supersedes: string | null;
  scope: ItemScope;
  scope_id: string | null;
  classification: ItemClassification;
  allow_roles: string[];
  /** Title of whoever the message reports as the source ("per the CEO"), if any. */
  authority: string | null;
  confidence: Confidence;
}

export interface ExtractionMessage {
  id: string;
  ts: string;
  role: "user" | "assistant" | "system" | "tool";
  speaker: string | null;
  content: string;
  /** Held back by screening (src/screening): a probe, not state. The run skips it. */
  screened?: boolean;
}

export interface ExtractionInput {
  messages: ExtractionMessage[];
  /** Active items, so an extractor can reference them by uid instead of repeating them. */
  existing: StateItem[];
  /**
   * Current slot facts of the thread's project (key → value), for implicit supersession; `elsewhere`
   * marks one another thread wrote (a correction that names no slot is about the conversation's own first).
   */
  existingFacts: { key: string; value: string; elsewhere?: boolean }[];
  /** Scope still open at the end of the previous run ("contingency planning" not yet closed). */
  openScope: CarriedScope | null;
  /**
   * The values stated inside `openScope` (slot key → its last value there), so that a turn adopting it
   * ("let's go with that") can make them current. Extractors may ignore it.
   */
  openScopeFacts?: { key: string; value: string }[];
}

/**
 * The conversation's open scope, carried from one extraction run to the next, with what its end
 * depends on (src/extraction/rules/scope-lifetime.ts).
 */
export interface CarriedScope {
  scope: ItemScope;
  scope_id: string | null;
  /** When the last user turn inside it was spoken. */
  last_ts?: string;
  /** User turns spoken inside it after the one that opened it. */
  turns?: number;
  /**
   * A single turn that supposed a value ("What if the deposit were $900?"): it covers no later turn,
   * but the next user turn may adopt it or turn it down.
   */
  proposal?: boolean;
  /**
   * What the proposal named (its content words), so a later turn may adopt it by naming them ("fine,
   * we'll take the LE" after "would it be crazy to drop to the LE trim?").
   */
  terms?: string[];
  /** Turns that put the decision off ("let me sit on it") since the proposal. */
  deferred?: number;
  /**
   * The proposal's turn, when it stayed in view, and the assistant's reply to it: what leaves the
   * context when a later turn turns the proposal down.
   */
  shown?: string[];
  /**
   * The assistant asked something after the proposal ("Want me to email the landlord?"): a "let's do
   * that" now answers the question, and adopts the proposal only by naming it.
   */
  asked?: boolean;
}

export interface ExtractionOutput {
  items: CandidateItem[];
  facts: ExtractedFact[];
  /** Items or facts the extractor produced but had to drop as invalid. */
  dropped: number;
  /** Scope still open after the last message, carried into the next run. */
  openScope: CarriedScope | null;
  /**
   * Scope ids a turn adopted ("let's go with that"): their turns and items become current, and the
   * extractor restated their values as facts of the adopting turn (extractors may omit).
   */
  adoptedScopes?: string[];
  /** Messages spoken inside a hypothetical, draft, task or session scope (extractors may omit). */
  messageScopes?: MessageScope[];
  /**
   * Assistant turns that repeat a value the user turn right before them stated ("Hourly rate noted:
   * $125"): they state what that turn stated, and date with it (extractors may omit).
   */
  messageEchoes?: MessageEcho[];
  /**
   * Values a message itself says a slot no longer holds: its history ("The original launch date
   * was Friday") and the steps it passes through before its final word ("we moved it to Thursday
   * … the final date is Monday"). Extractors may omit.
   */
  retiredValues?: RetiredValue[];
  /**
   * Assistant turns that repeat the current value of a slot, whichever earlier turn stated it
   * ("Noted: pescatarian for you"): each states that value of that slot, so it leaves the context
   * with the value when the slot changes (extractors may omit).
   */
  echoedValues?: RetiredValue[];
}

export interface RetiredValue {
  /** The message that retires the value. */
  id: string;
  key: string;
  value: string;
}

export interface MessageEcho {
  /** The repeating (assistant) message. */
  id: string;
  /** The user message whose values it repeats. */
  of: string;
}

export interface MessageScope {
  id: string;
  scope: ItemScope;
  scope_id: string | null;
}

/** Port: reads structured state from messages. Adapters: the offline rules, an LLM. */
export interface Extractor {
  readonly name: string;
  extract(input: ExtractionInput): Promise<ExtractionOutput>;
}
