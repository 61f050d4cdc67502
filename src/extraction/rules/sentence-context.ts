import type { ExtractionMessage } from "../../items/types";
import type { ClassificationHint } from "./classification";
import type { OpenScope } from "./scope-tracker";
import { GLOBAL } from "./slot-registry";
import type { SlotReading } from "./slots/reading";

/**
 * What the extractor knows about one sentence while it reads its facts and its item: the message,
 * the scope it is spoken in, its authority and classification, and the signals that limit what it
 * may change.
 */
export interface SentenceContext {
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
  /**
   * The scope of a proposal an earlier sentence of the turn made ("Would it be crazy to drop to the
   * LE trim? It's $33,400."): "it"/"that" now points at the proposed thing, so a pronoun's value is
   * that proposal's, not current state. Null when the turn proposed nothing.
   */
  proposal: OpenScope | null;
}

/** Slot registry key of a scope: one namespace per non-global scope, so scoped values never meet global ones. */
export function scopeKeyOf(scope: OpenScope | null): string {
  return scope && scope.scope !== "global" ? `${scope.scope}:${scope.scope_id ?? ""}` : GLOBAL;
}

/**
 * A sentence's scope: the open scope it falls in, else its message's marker scope, else a scope of
 * its own when it is hypothetical or a draft (one per message, so two drafts stay apart).
 */
export function sentenceScope(
  open: OpenScope | null,
  marker: OpenScope | null,
  hypothetical: boolean,
  draft: boolean,
  messageId: string,
): OpenScope | null {
  let scope = open ?? marker;
  if (!scope && hypothetical) scope = { scope: "hypothetical", scope_id: `hypothetical@${messageId}` };
  if (!scope && draft) scope = { scope: "draft", scope_id: `draft@${messageId}` };
  return scope;
}

/**
 * A reading's scope: the sentence's, or, in a global sentence, a scope of its own for a modal
 * ("would be") or a draft label ("Draft pricing: …") the sentence itself does not already mark.
 */
export function readingScope(reading: SlotReading, ctx: SentenceContext): OpenScope | null {
  let scope = ctx.scope;
  if (!scope && (reading.modal || (reading.draft && !ctx.draft))) {
    scope = reading.modal
      ? { scope: "hypothetical", scope_id: `hypothetical@${ctx.message.id}` }
      : { scope: "draft", scope_id: `draft@${ctx.message.id}` };
  }
  return scope;
}
