import type { IdentityInput, ObjectKindName, OmitReasonName } from "../api/schemas";
import type { AuthorityTier } from "../facts/authority";
import type { FactRow } from "../facts/fact-schema";
import type { StateItem } from "../state/types";

export interface MessageRecord {
  id: string;
  ts: string;
  role: string;
  speaker: string | null;
  content: string;
  /** "[ts] speaker: content", rendered at write time. */
  line: string;
  tokens: number;
  /** Set by extraction when the message was spoken inside a hypothetical, draft, task or session scope. */
  scope?: string | null;
  scope_id?: string | null;
}

/** An earlier message retrieved for the query, with its relevance (higher is more relevant). */
export interface EpisodeRecord extends MessageRecord {
  score: number;
}

/** Slot values extraction read from a message, with the message's time. */
export interface StatedClaims {
  ts: string;
  claims: { key: string; value: string }[];
}

/** Working-set and environment-layer entries live in the thread; they are upserted by key. */
export interface LayerEntry {
  id: string;
  key: string;
  valueJson: string;
  content: string;
  tokens: number;
  ts: string;
  expiresAt: string | null;
  scope: string;
  scopeId: string | null;
  classification: string;
  allowRolesJson: string;
  denyRolesJson: string;
  /** Set when a later write for the same key replaced this value. */
  replacedBy: string | null;
}

/** A state item with its rendered line and token count, both computed when the item was written. */
export interface StateItemRecord {
  item: StateItem;
  line: string;
  tokens: number;
}

export interface CompileInput {
  query: string;
  budgetTokens: number;
  factsShare: number;
  now: string;
  threadId: string;
  taskId?: string;
  requestRoles?: string[];
  identity: IdentityInput;
  environment: Record<string, unknown>;
  ladder: AuthorityTier[];
  facts: FactRow[];
  working: LayerEntry[];
  environmentFacts: LayerEntry[];
  /** Extracted state items, superseded ones included so the trace can name them. */
  items: StateItemRecord[];
  /** What the tail messages and the source messages of items stated, by message id. */
  statedClaims: Map<string, StatedClaims>;
  /** Most recent messages, oldest first. */
  messages: MessageRecord[];
  /** Earlier messages retrieved by relevance to the query, in any order; tail messages may recur. */
  episodes?: EpisodeRecord[];
  countTokens: (text: string) => number;
}

/** The compiler's unit: every source is normalized into this before any decision is taken. */
export interface Candidate {
  objectId: string;
  kind: ObjectKindName;
  key: string | null;
  text: string;
  tokens: number;
  ts: string;
  scope: string;
  scopeId: string | null;
  classification: string;
  allowRoles: string[];
  denyRoles: string[];
  isValid: boolean;
  disputed: boolean;
  validFrom: string | null;
  validUntil: string | null;
  isConstraint: boolean;
  /** The object's claim (its value, markers removed), used to recognise it restated elsewhere. */
  claim: string | null;
  /** For a superseded fact, the id of the version that replaced it. */
  supersededBy: string | null;
  refs?: string[];
}

export interface Omission {
  candidate: Candidate;
  reason: OmitReasonName;
  detail?: string;
}

export interface Section {
  name: string;
  title: string;
  lines: { candidate: Candidate | null; text: string; tokens: number }[];
}
