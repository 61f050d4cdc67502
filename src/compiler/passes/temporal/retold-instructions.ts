import type { ContextObject, Omission } from "../../context-object";
import type { DeadClaim } from "../../hygiene/dead-claim";
import { type Instruction, overridden, topicOf } from "./instruction-authority";
import { validTime } from "./slot-reconciliation";

/**
 * A conversation often retells an instruction in its own words before or beside the instruction
 * itself ("Engineer Ray estimated four sprints for the port. The CTO wants it by June."). Once the
 * instruction is overridden (instruction-authority.ts), the sentence that retells it speaks for a dead
 * instruction too. A sentence retells it when it names the instruction's speaker, states one of the
 * instruction's own values (a figure, a number or a name the winning instruction does not state) and
 * speaks of its topic. All three are needed, so a sentence about someone else, or about what the
 * speaker said on another matter, is left alone. Each such sentence becomes a dead claim of the
 * overridden instruction: hygiene masks it where it is quoted and keeps the rest of the message.
 */

/** A token that carries a value: a figure, a number, or a name with inner capitals (MongoDB, CFO, Q3). */
const VALUE_TOKEN = /[\d$%€£¥]|^.+[A-Z]/;
const TOKEN = /[$€£¥]?[A-Za-z0-9][\w.,%-]*[A-Za-z0-9%]|[$€£¥]?[A-Za-z0-9]/g;
const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g;

const tokensOf = (text: string) => (text.match(TOKEN) ?? []).map((t) => t.replace(/[.,]+$/, ""));

/**
 * The instruction's own values: value tokens and names after its first word, less the winner's. Only
 * what it set counts: a figure it reported ("last quarter we spent $900") was not overridden, and a
 * sentence retelling that figure is left alone.
 */
function ownValues(loser: Instruction, winner: Instruction): Set<string> {
  const theirs = new Set(tokensOf(winner.body).map((t) => t.toLowerCase()));
  const own = new Set<string>();
  for (const [i, token] of tokensOf(loser.held.text).entries()) {
    const isName = i > 0 && /^[A-Z]/.test(token);
    if (!isName && !VALUE_TOKEN.test(token)) continue;
    const lower = token.toLowerCase();
    if (!theirs.has(lower) && !loser.names.some((n) => n.toLowerCase() === lower)) own.add(lower);
  }
  return own;
}

/** What retells reads of a text, worked out once per text: its tokens, their value words, its topic. */
interface ReadTokens {
  tokens: Set<string>;
  /** Each token lower-cased, and the parts of a hyphenated one. */
  words: string[];
  topic?: Set<string>;
}

const readTokens = (text: string): ReadTokens => {
  const tokens = tokensOf(text);
  const words = new Set<string>();
  for (const t of tokens) {
    words.add(t.toLowerCase());
    for (const part of t.split("-")) words.add(part.toLowerCase());
  }
  return { tokens: new Set(tokens), words: [...words] };
};

/** Whether a sentence names the instruction's speaker, states one of its values and speaks of its topic. */
function retells(
  sentence: string,
  instruction: Instruction,
  values: Set<string>,
  read = readTokens(sentence),
): boolean {
  if (!instruction.names.some((name) => read.tokens.has(name))) return false;
  // "2-week" states the 2 of "2 weeks": a hyphenated token counts by its parts too.
  if (!read.words.some((w) => values.has(w))) return false;
  // The same figure said of another matter ("Otto paid the $900 catering bill") retells nothing.
  read.topic ??= topicOf(sentence);
  for (const w of read.topic) if (instruction.topic.has(w)) return true;
  return false;
}

/** An overridden instruction, with what retells it. */
export interface Retold {
  instruction: Instruction;
  reason: Omission["reason"];
  /** When its winner became valid. */
  diedAt: string;
  values: Set<string>;
  /** What was said, lower-cased: an item or turn that holds it repeats the instruction. */
  said: string;
}

/** The overridden attributed instructions among a settlement's omissions (instructionOverrides made them). */
export function overriddenInstructions(omitted: readonly Omission[]): Retold[] {
  const found: Retold[] = [];
  for (const o of omitted) {
    const pair = overridden.get(o.object);
    if (!pair) continue;
    found.push({
      instruction: pair.loser,
      reason: o.reason,
      diedAt: validTime(pair.winner.object),
      values: ownValues(pair.loser, pair.winner),
      said: pair.loser.body.trim().toLowerCase(),
    });
  }
  return found;
}

/** The overridden instruction a stored item repeats or retells, if any. */
export function itemRetelling(item: ContextObject, retold: readonly Retold[]): Retold | undefined {
  const text = item.claim ?? item.text;
  const lower = text.toLowerCase();
  // The item's tokens are read once, by the first instruction that asks.
  let read: ReadTokens | undefined;
  const readOnce = () => {
    read ??= readTokens(text);
    return read;
  };
  return retold.find(
    (r) =>
      (r.said.length >= 12 && lower.includes(r.said)) ||
      (r.values.size > 0 && retells(text, r.instruction, r.values, readOnce())),
  );
}

/**
 * Dead claims for the sentences of `messages` that retell an overridden attributed instruction, each
 * dead from when its winner became valid.
 */
export function retoldInstructions(
  retold: readonly Retold[],
  messages: readonly ContextObject[],
): DeadClaim[] {
  if (!retold.length) return [];
  const found: DeadClaim[] = [];
  const seen = new Set<string>();
  for (const { instruction, reason, diedAt, values } of retold) {
    if (!values.size || !instruction.names.length) continue;
    for (const message of messages) {
      for (const { sentence, read } of sentencesOf(message)) {
        if (seen.has(sentence)) continue;
        if (!retells(sentence, instruction, values, read)) continue;
        seen.add(sentence);
        found.push({
          text: sentence,
          lower: sentence.toLowerCase(),
          reason,
          objectId: instruction.object.objectId,
          diedAt,
          figures: [],
        });
      }
    }
  }
  return found;
}

/** A message's sentences of 12 characters or more, each with its tokens: read once per message object. */
const messageSentences = new WeakMap<ContextObject, { sentence: string; read: ReadTokens }[]>();
function sentencesOf(message: ContextObject): { sentence: string; read: ReadTokens }[] {
  let found = messageSentences.get(message);
  if (!found) {
    const stamp = message.transcript?.stamp;
    const text = stamp && message.text.startsWith(stamp) ? message.text.slice(stamp.length) : message.text;
    found = [];
    for (const match of text.matchAll(SENTENCE)) {
      const sentence = match[0].trim();
      if (sentence.length >= 12) found.push({ sentence, read: readTokens(sentence) });
    }
    messageSentences.set(message, found);
  }
  return found;
}
