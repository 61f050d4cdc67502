import { attributeWord } from "../../../entities/slot-attribute";
import { UNITS } from "../../../extraction/rules/slots/asking";
import { readLeadingTags } from "../../../extraction/rules/speaker";
import { type AuthorityTier, authorityRank, DEFAULT_AUTHORITY_LADDER } from "../../../facts/authority";
import type { ContextObject, Omission } from "../../context-object";
import { figureNumber, MONEY_FIGURE, PERCENT_FIGURE } from "../../hygiene/figures";
import { terms } from "../../lexical";
import type { LeadingRun } from "../../list-edits";
import { clauses } from "./instruction-mood";
import { validTime } from "./slot-reconciliation";

/**
 * Attributed instructions that speak of one thing under different keys (issue 17, item 5). A client
 * often files what people said under generic keys ("instruction_a", "instruction_b"), each value
 * naming its speaker ("[VP] Vera (VP Sales): Maximum discount is 15%", "Mark (Sales Manager): Give this
 * customer 25% off"). Their slot is not in the key: it is read from the values, as what the instruction
 * is about (its topic words, in the canonical form slot-attribute.ts gives) and the kind of value it
 * sets (an amount, a share, a time, a choice).
 *
 * Two attributed instructions are one slot only with evidence on both sides, because hiding an
 * instruction that still holds is worse than showing one that no longer does:
 * - they speak of one thing. Where the project's entity registry is at hand and both name registered
 *   things (not the people or roles who act), the canonical ids decide: a shared entity is one matter
 *   ("Project Kestrel" and "the Kestrel account"), different ones are different matters whatever words
 *   they share ("Kestrel Labs" is not Project Kestrel), and sharing only the entity, only a value
 *   beyond the other's bound shows they collide (they may speak of different attributes of it).
 *   Otherwise they share a word for the thing, not for who acts (titles, "the team"): from different
 *   speakers a common word, written in lower case in one of them ("Priya leads …" and "Priya takes …"
 *   only name a person); from the same speaker a name will do ("Project Kite"), and
 * - the values collide: an amount or share beyond the other's bound ("up to $180k" against "$200k";
 *   "$175k" is within it and both stand), two times for the same thing ("3 weeks" against "by Friday"),
 *   an explicit counter-instruction ("…, use that instead"), or — from the same speaker — a later word
 *   that marks a change ("now", "no longer", "cancelled").
 * What is overridden must have been asked for (instruction-mood.ts): the figure, the time or the
 * counter-proposal that collides sits in a directive clause (an instruction, request, proposal, plan
 * or commitment), or the same speaker's later word changes what they had set. A report of what is or
 * was ("The budget report shows $5,000 in savings") or a question is never overridden.
 * The higher rank on the authority ladder wins; between the same speaker's words the later wins.
 * Different speakers of equal rank settle nothing here: that is a conflict for a person to resolve,
 * and both stay in view.
 */

export interface Instruction {
  object: ContextObject;
  rank: number;
  speaker: string;
  /** The words naming the speaker ("Charles" of "Charles (CEO)"; the title when no name is given). */
  names: string[];
  /** What it is about: its words less those naming who acts (titles, the team). */
  topic: Set<string>;
  /** Its words written in lower case: the things it is about, in common words. */
  things: Set<string>;
  /** The first words of its sentences, which are common words only if written so elsewhere. */
  heads: Set<string>;
  /**
   * The registered things it names, as canonical ids (the entity registry's, not its people or roles);
   * undefined when no registry was at hand, empty when it names none.
   */
  entities?: ReadonlySet<string>;
  body: string;
  amounts: Figure[];
  times: boolean;
  change: boolean;
  /** What its directive clauses ask for: only this can be overridden by another speaker. */
  asked: Part;
  /** What it sets, asked for or stated (its clauses less reports and questions). */
  held: Part;
}

/** Some of an instruction's clauses ("" when none) and the values they carry. */
interface Part {
  text: string;
  amounts: Figure[];
  times: boolean;
  counter: boolean;
}

interface Figure {
  unit: "money" | "percent" | "days";
  value: number;
  /** A bound the statement sets ("up to", "capped at", "over … requires"), not a value it asks for. */
  bound: boolean;
}

/** "Name (Title): " after any leading tags: the speaker of an attributed line. */
const NAMED = /^\s*(?:\[[^\]]{1,80}\]\s*)*([A-Z][^():[\]\n]{0,60}?)\s*\(([^)]{1,50})\)\s*:\s*/;
const TAGS = /^\s*(?:\[[^\]]{1,80}\]\s*:?\s*)+/;

const DURATION = new RegExp(
  `\\b(\\d+|${Object.keys(UNITS).join("|")})[\\s-](day|week|month|year)s?\\b`,
  "gi",
);
const DEADLINE =
  /\b(?:by|before|until|no later than)\s+(?:the\s+)?(?:end of\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|next\s+\w+|q[1-4]|eod|eow|january|february|march|april|may|june|july|august|september|october|november|december|\d)/i;
/** Words before a figure that make it a bound rather than a value asked for. */
const BOUND_BEFORE =
  /(?:\b(?:up to|under|below|less than|at most|no more than|not to exceed|over|above|more than|exceeding|beyond|greater than|capped at|limited to)|\b(?:max|maximum|cap|ceiling|limit)\b(?:\s+\w+){0,2}\s+(?:is|of|at))\s*$/i;
const COUNTER = /\b(?:instead|rather than|would be better|better to)\b/i;
const CHANGE =
  /\b(?:now|no longer|any ?more|cancell?ed|called off|scrapped|revoked|rescinded|withdrawn|changed|reversed|from now on|effective immediately)\b/i;

const DAYS: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };

/** Words too common to say what an instruction is about. */
const GENERIC = new Set(["new", "per", "now", "need", "if", "get", "make", "want", "pleas", "go", "ahead"]);

const timesOf = (text: string, amounts: Figure[]) =>
  DEADLINE.test(text) || amounts.some((f) => f.unit === "days");

function partOf(texts: string[]): Part {
  const text = texts.join(". ");
  const amounts = figures(text);
  return { text, amounts, times: timesOf(text, amounts), counter: COUNTER.test(text) };
}

function figures(body: string): Figure[] {
  const found: Figure[] = [];
  const bounded = (index: number) => BOUND_BEFORE.test(body.slice(Math.max(0, index - 40), index));
  for (const [unit, pattern] of [
    ["money", MONEY_FIGURE],
    ["percent", PERCENT_FIGURE],
  ] as const) {
    for (const m of body.matchAll(pattern)) {
      found.push({ unit, value: figureNumber(m[0]), bound: bounded(m.index ?? 0) });
    }
  }
  for (const m of body.matchAll(DURATION)) {
    const count = UNITS[(m[1] ?? "").toLowerCase()] ?? Number(m[1]);
    const unit = DAYS[(m[2] ?? "").toLowerCase()] ?? 1;
    found.push({ unit: "days", value: count * unit, bound: bounded(m.index ?? 0) });
  }
  return found;
}

/**
 * Words that say who acts or who decides, not what the instruction is about: the ladder's titles
 * ("manager", "board", "policy") and the people an instruction addresses.
 */
const WHO = new Set<string>(
  [
    ...DEFAULT_AUTHORITY_LADDER.flatMap((tier) => [tier.name, ...tier.words]),
    ...["team", "everyone", "everybody", "staff", "people", "customer", "client", "company", "department"],
    ...["group", "org", "organization", "person", "folk", "colleague", "approval", "approve"],
  ].flatMap((w) => terms(w).map(attributeWord)),
);

export function topicOf(body: string): Set<string> {
  const words = new Set<string>();
  for (const term of terms(body)) {
    if (/[\d$%]/.test(term) || term.length < 3 || GENERIC.has(term)) continue;
    const word = attributeWord(term);
    if (!WHO.has(word)) words.add(word);
  }
  return words;
}

/**
 * A capitalised word may be a name ("Mia", "Phoenix"), at the head of a sentence too ("Priya leads …").
 * A word counts as a common word for the thing when it is written in lower case somewhere: in the
 * instruction itself (`things`), or, for the first word of a sentence (`heads`), in the other one.
 */
const CAPITALISED = /\b[A-Z][A-Za-z0-9'-]*/g;
const commonWords = (body: string) => body.replace(CAPITALISED, " ");
function sentenceHeads(body: string): string {
  const heads: string[] = [];
  for (const m of body.matchAll(CAPITALISED)) {
    const before = body.slice(0, m.index).trimEnd();
    if (before === "" || /[.!?:;]$/.test(before)) heads.push(m[0]);
  }
  return heads.join(" ");
}

/**
 * The registered things a text names, as canonical ids (src/entities/fact-entities.ts, namedThings over
 * the project's registry); undefined when the registry is not at hand.
 */
export type NamedThings = (text: string) => readonly string[] | undefined;

/** The instruction an object states with its speaker named; null for others, which settle nothing here. */
export function attributedInstruction(
  object: ContextObject,
  ladder: AuthorityTier[] = DEFAULT_AUTHORITY_LADDER,
  things: NamedThings = () => undefined,
): Instruction | null {
  const claim = object.claim;
  if (!claim || object.kind !== "fact") return null;
  // The claim drops leading tags ("[VP] …"); the stored line ("key: value") keeps them.
  const prefix = object.key ? `${object.key}: ` : "";
  const line = prefix && object.text.startsWith(prefix) ? object.text.slice(prefix.length) : claim;
  // Only a title the ladder knows makes a line an attributed instruction ("Budget (approved): …" is not).
  const title = readLeadingTags(line).authority;
  if (!title) return null;
  const named = NAMED.exec(claim);
  const body = (named ? claim.slice(named[0].length) : readLeadingTags(line).body.replace(TAGS, "")).trim();
  if (!body) return null;
  const speaker = (named ? `${named[1]} (${named[2]})` : title).toLowerCase().replace(/\s+/g, " ");
  const amounts = figures(body);
  const moods = clauses(body);
  const entities = things(body);
  const some = (...kinds: string[]) => moods.filter((c) => kinds.includes(c.mood)).map((c) => c.text);
  return {
    object,
    // The rank of whoever the value names: the writer only files what was said.
    rank: authorityRank(title, ladder),
    speaker,
    names: (named ? (named[1] ?? "") : title).split(/\s+/).filter((w) => /^[A-Z]/.test(w) && w.length > 1),
    topic: topicOf(body),
    things: topicOf(commonWords(body)),
    heads: topicOf(sentenceHeads(body)),
    ...(entities ? { entities: new Set(entities) } : {}),
    body,
    amounts,
    times: timesOf(body, amounts),
    change: CHANGE.test(body),
    asked: partOf(some("directive")),
    held: partOf(some("directive", "statement")),
  };
}

/** The memo table instructionOverrides reads (CompilerMemos holds it). */
export interface InstructionMemos {
  /**
   * Each fact's attributed instruction, or null, with the ladder it was read against (as JSON) and the
   * registry view that named its things (registryThings keeps one per registry): it depends on the
   * object, the ladder and that view alone. A large project's candidates are mostly the same
   * objects compile after compile, in a list that changes with every question, and few are
   * attributed, so reading every value's tags again cost more than the rest of the pass. Objects are
   * never changed once made (a changed record is normalised into a new object), and neither is an
   * Instruction once read.
   */
  instructions: WeakMap<
    ContextObject,
    { ladder: string; things: NamedThings | undefined; instruction: Instruction | null }
  >;
  /**
   * The ladder as JSON last read, the string every entry above was made with since: a ladder that
   * reads the same is compared to each entry's by identity rather than character by character (some
   * 800 characters, for every candidate fact of every compile).
   */
  ladderKey?: string;
  /** The instructions of the run of facts instructionOverrides's lists begin with, as read against a ladder and registry view. */
  instructionRuns?: LeadingRun<ContextObject, RunInstructions>;
}

/** A run's attributed instructions, in order, read against this ladder (as JSON) and registry view. */
export interface RunInstructions {
  ladder: string;
  things: NamedThings | undefined;
  instructions: Instruction[];
}

/** The instructions behind each omitted object instructionOverrides made (read by retold-instructions.ts). */
export const overridden = new WeakMap<ContextObject, { loser: Instruction; winner: Instruction }>();

const share = (a: ReadonlySet<string>, b: ReadonlySet<string>) => {
  for (const w of a) if (b.has(w)) return true;
  return false;
};
const shareThing = (a: Instruction, b: Instruction) =>
  share(a.things, b.things) || share(a.heads, b.things) || share(a.things, b.heads);

/**
 * Whether `rule`'s bounds settle `asked`: "exceeds" when a value asked for lies beyond a bound of the
 * same unit, "within" when every such value lies inside it, null when no bound meets a value.
 */
function againstBounds(rule: Instruction, asked: Part): "exceeds" | "within" | null {
  let verdict: "exceeds" | "within" | null = null;
  for (const bound of rule.amounts) {
    if (!bound.bound) continue;
    for (const value of asked.amounts) {
      if (value.bound || value.unit !== bound.unit) continue;
      if (value.value > bound.value) return "exceeds";
      verdict = "within";
    }
  }
  return verdict;
}

/**
 * Whether two instructions speak of one thing: "entity" when both name registered things and share one
 * (the registry's canonical ids: "Project Kestrel" and "Kestrel" are one), "words" when they share a word
 * for it (topicOf; from different speakers a common word, shareThing), null when neither shows it. Named
 * things decide where both name some: different registered things ("Project Kestrel", "Kestrel
 * Logistics") are different matters, whatever words they share.
 */
function sameMatter(a: Instruction, b: Instruction, sameSpeaker: boolean): "entity" | "words" | null {
  const words = sameSpeaker ? share(a.topic, b.topic) : shareThing(a, b);
  if (a.entities?.size && b.entities?.size) {
    if (!share(a.entities, b.entities)) return null;
    return words ? "words" : "entity";
  }
  return words ? "words" : null;
}

/**
 * Why `winner` overrides `loser`, or null when nothing shows they collide. The evidence must lie in
 * what the loser asked for; the same speaker's later word marking a change also settles what they
 * stated, but never what they only reported or asked. Two instructions that share only a registered
 * thing (`matter` "entity") may speak of different attributes of it: only a value beyond the other's
 * bound of the same unit shows they collide.
 */
function collision(
  winner: Instruction,
  loser: Instruction,
  sameSpeaker: boolean,
  matter: "entity" | "words",
): string | null {
  if (againstBounds(winner, loser.held) === "within") return null;
  const { asked } = loser;
  if (againstBounds(winner, asked) === "exceeds") return "asks for more than its bound";
  if (matter === "entity") return null;
  if (sameSpeaker)
    return winner.change && loser.held.text ? "a later word from the same speaker changes it" : null;
  if (winner.times && asked.times) return "sets another time for it";
  if (asked.counter) return "a counter-instruction to it";
  return null;
}

/**
 * The attributed facts another attributed fact overrides, as omissions: "overridden" by a higher rank,
 * "superseded" by the same speaker's later word. Each loser names its winner (supersededBy), so
 * hygiene recognises the dead instruction restated in messages and items.
 */
export function instructionOverrides(
  facts: readonly ContextObject[],
  ladder: AuthorityTier[] = DEFAULT_AUTHORITY_LADDER,
  things?: NamedThings,
  memos: InstructionMemos = { instructions: new WeakMap() },
): Omission[] {
  let ladderKey = JSON.stringify(ladder);
  if (ladderKey === memos.ladderKey) ladderKey = memos.ladderKey;
  else memos.ladderKey = ladderKey;
  const read = (list: readonly ContextObject[], from: number, into: Instruction[]) => {
    for (let i = from; i < list.length; i++) {
      const fact = list[i] as ContextObject;
      let held = memos.instructions.get(fact);
      if (held?.ladder !== ladderKey || held.things !== things) {
        held = { ladder: ladderKey, things, instruction: attributedInstruction(fact, ladder, things) };
        memos.instructions.set(fact, held);
      }
      if (held.instruction) into.push(held.instruction);
    }
    return into;
  };
  // The run of held facts the list begins with is read once per ladder and registry view.
  const runOf = (objects: readonly ContextObject[]) => ({
    ladder: ladderKey,
    things,
    instructions: read(objects, 0, []),
  });
  const run = memos.instructionRuns?.of(facts, runOf);
  if (run && (run.value.ladder !== ladderKey || run.value.things !== things)) {
    Object.assign(run.value, runOf(facts.slice(0, run.length)));
  }
  const instructions = read(facts, run?.length ?? 0, run ? [...run.value.instructions] : []);
  if (instructions.length < 2) return [];
  const out = new Map<string, Omission>();
  for (let i = 0; i < instructions.length; i++) {
    const a = instructions[i] as Instruction;
    for (let j = i + 1; j < instructions.length; j++) {
      const b = instructions[j] as Instruction;
      // A task's or a session's instruction holds in its own scope, the project's everywhere: neither
      // settles the other (both reach a compile for that task or session; hypothetical and draft ones
      // never do, the gate leaves them out).
      if (a.object.scope !== b.object.scope || a.object.scopeId !== b.object.scopeId) continue;
      const sameSpeaker = a.speaker === b.speaker;
      // Who would win is cheap to tell, and a loser already settled needs no more: both come before
      // whether the two speak of one matter (the same pairs reach collision as in the order of the seed).
      let winner: Instruction;
      let loser: Instruction;
      if (sameSpeaker) {
        if (validTime(a.object) === validTime(b.object)) continue;
        const later = validTime(b.object).localeCompare(validTime(a.object)) > 0;
        winner = later ? b : a;
        loser = later ? a : b;
      } else if (a.rank !== b.rank) {
        winner = a.rank > b.rank ? a : b;
        loser = a.rank > b.rank ? b : a;
      } else continue;
      if (out.has(loser.object.objectId)) continue;
      // The same speaker may name the thing ("Project Kite"); different speakers must share a common
      // word for it, as a shared name alone may be a person both speak of on different matters, or a
      // registered thing both name.
      const matter = sameMatter(a, b, sameSpeaker);
      if (!matter) continue;
      const why = collision(winner, loser, sameSpeaker, matter);
      if (!why) continue;
      // Its claim is what was said, without who said it: the items and turns that restate the
      // instruction quote that part.
      const object: ContextObject = {
        ...loser.object,
        claim: loser.body,
        contradiction: "overridden",
        supersededBy: winner.object.objectId,
      };
      overridden.set(object, { loser, winner });
      out.set(loser.object.objectId, {
        object,
        reason: sameSpeaker ? "superseded" : "overridden",
        detail: sameSpeaker
          ? `${winner.object.objectId} (${winner.speaker}) ${why}`
          : `${winner.object.objectId} (${winner.speaker}, rank ${winner.rank}) outranks rank ${loser.rank}: ${why}`,
      });
    }
  }
  return [...out.values()];
}
