import type { DetailForms } from "../detail-forms/detail-forms";
import type { ScreenKind } from "../domain/screening";
import type { StateItem } from "../items/types";

/** A user turn held back by screening (src/screening): the notice line shown in its place, and why. */
export interface MessageScreen {
  kind: ScreenKind;
  detail: string;
  /** "[ts] speaker: [withheld: …]", rendered when the turn was written, with its token count. */
  line: string;
  tokens: number;
}

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
  /** Summary and micro forms, stored at write time (absent for messages written before they existed). */
  forms?: DetailForms | null;
  /** Set when screening held the turn back: the compiler shows the notice, never the turn. */
  screen?: MessageScreen | null;
}

/** An earlier message retrieved for the query, with its relevance (higher is more relevant). */
export interface EpisodeRecord extends MessageRecord {
  score: number;
  /** Retrieval's similarity to the query in [0, 1]; pass 7 weighs it against the message's length. */
  similarity?: number;
}

/** Slot values extraction read from a message, with the message's time. */
export interface StatedClaims {
  ts: string;
  claims: { key: string; value: string }[];
  /** Values the message itself said are no longer held ("the original date was Friday"). */
  retired?: string[];
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
