import type { CandidateItem, ExtractionMessage, MessageEcho, MessageScope } from "../../items/types";
import { accepts, affirmedProposal, correctedPhrases, misquotedAmounts } from "./assistant-corrections";
import type { OpenScope } from "./scope-tracker";
import { isAcknowledgement } from "./signals";
import { cleanText, contentWords } from "./text";
import { figures } from "./values";

/**
 * What an assistant turn does to the user turn right before it. An assistant paraphrase is no
 * evidence of its own, so it never states facts or items; but acknowledging or repeating the user
 * turn corroborates that turn's items, echoes its stated values, and speaks in its scope.
 */
export class AssistantTurns {
  readonly messageEchoes: MessageEcho[] = [];
  /** The items of the last user message, for an assistant confirmation right after it. */
  private pending: { items: CandidateItem[]; values: string[] } | null = null;
  /** The global slot values the last user turn stated, for an assistant turn repeating them. */
  private statedTurn: { id: string; values: string[] } | null = null;
  /** The last user turn, when it was spoken inside a scope, for an assistant echo right after it. */
  private scopedTurn: { scope: OpenScope; text: string } | null = null;
  /** The last user turn's text, for an assistant turn that misquotes it. */
  private userText: string | null = null;
  /** The last assistant turn, and the amounts it misquoted, for the user turn that answers it. */
  private answered: { text: string; misquoted: string[] } | null = null;

  /**
   * The phrases of the assistant turn just before that this user turn corrects
   * (assistant-corrections.ts): they are retired from this turn on.
   */
  correctedBy(userText: string): {
    corrected: string[];
    affirmed: { part: string; value: string } | null;
  } {
    const turn = this.answered;
    this.answered = null;
    if (!turn) return { corrected: [], affirmed: null };
    const corrected = correctedPhrases(turn.text, userText);
    if (!accepts(userText)) corrected.push(...turn.misquoted);
    return { corrected: [...new Set(corrected)], affirmed: affirmedProposal(turn.text, userText) };
  }

  /** Any turn but an assistant's ends what the previous user turn left for an assistant to answer. */
  forget(): void {
    this.pending = null;
    this.scopedTurn = null;
    this.statedTurn = null;
    this.userText = null;
    this.answered = null;
  }

  /**
   * A user turn just read: its new items and the values its facts gave, the global values it
   * stated, and the scope it was spoken in (with its text), for the assistant turn that may follow.
   */
  userTurn(
    id: string,
    turn: {
      items: CandidateItem[];
      values: string[];
      stated: string[];
      scope: OpenScope | null;
      text: string;
    },
  ): void {
    if (turn.scope) this.scopedTurn = { scope: turn.scope, text: turn.text };
    this.userText = turn.text;
    this.pending = turn.items.length ? { items: turn.items, values: turn.values } : null;
    this.statedTurn = turn.stated.length ? { id, values: turn.stated } : null;
  }

  /** Reads an assistant turn; the scope it speaks in when it echoes a scoped user turn, else null. */
  assistantTurn(message: ExtractionMessage): MessageScope | null {
    const text = cleanText(message.content ?? "");
    const misquoted = this.userText ? misquotedAmounts(this.userText, text) : [];
    this.userText = null;
    this.answered = text ? { text, misquoted } : null;
    this.confirm(message);
    const scope = this.echoScope(message);
    this.echoValues(message);
    return scope;
  }

  /**
   * An assistant turn that acknowledges a scoped user turn or echoes it (a figure, or two content
   * words) speaks inside that scope: "Draft recorded: $85 per unit" is as much a draft as the draft.
   */
  private echoScope(message: ExtractionMessage): MessageScope | null {
    const turn = this.scopedTurn;
    this.scopedTurn = null;
    if (!turn) return null;
    if (!repliesTo(turn.text, cleanText(message.content ?? ""))) return null;
    return { id: message.id, scope: turn.scope.scope, scope_id: turn.scope.scope_id };
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

/** An assistant turn answers this user turn: it acknowledges it, or repeats a figure or two content words. */
export function repliesTo(userText: string, content: string): boolean {
  if (!content) return false;
  const theirs = new Set(figures(userText));
  const words = new Set(contentWords(userText));
  const sharedWords = new Set(contentWords(content).filter((w) => words.has(w))).size;
  return isAcknowledgement(content) || figures(content).some((f) => theirs.has(f)) || sharedWords >= 2;
}
