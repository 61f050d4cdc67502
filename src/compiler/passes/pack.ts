import type { CompiledAsName, DetailLevelName, PriorityTierName } from "../../domain/compilation";
import type { PendingReference } from "../../domain/trace";
import { PASSAGE_TOKENS } from "../../retrieval/passages";
import { BoundedMap, MEMO_LIMITS, perList } from "../cache/memo-tables";
import type { ContextObject, Omission } from "../context-object";
import { type ClaimsAgainstMemos, claimsAgainst } from "../hygiene/claims-against";
import type { DeadClaim } from "../hygiene/dead-claim";
import { type MaskMemos, maskClaims } from "../hygiene/mask";
import { dateGroupOf, groupHeader, type TranscriptMemos } from "../transcript";
import { formOf, formTokens, ladderStep, pendingNote, phrase } from "./compress";
import { episodeValue } from "./episode-value";
import { type Excerpt, type ExcerptMemos, excerptOf } from "./excerpt";
import { SECTIONS, type SectionName } from "./order";
import type { Ranked } from "./rank";
import type { OwnTurn } from "./temporal/settle-transcript";

/**
 * Pass 7, continued: layered budgets in the spirit of seed 004. Layers are filled in order and what a
 * layer leaves unused flows on to the next:
 *  1. identity, the present moment and critical rules — always;
 *  2. task state: environment signals, relevant state items and working-set notes;
 *  3. ranked facts (up to `factsShare` of what remains), then episodes, then the recent tail;
 *  4. background (minimal tier) in whatever is left: the thread's own facts and state items first,
 *     then the facts other threads wrote.
 * Each object takes the richest detail level that fits its tier's allowance: critical objects only
 * whole, others falling back to their stored summary and then micro form.
 */

export interface Placed {
  object: ContextObject;
  section: SectionName;
  line: string;
  detail: DetailLevelName;
  tier: PriorityTierName;
  compiledAs: CompiledAsName;
  tokens: number;
  /** Pending entities the object names (seed 001: no hard constraint until they are reviewed). */
  pendingEntities?: string[];
  /** Lines of a section that share a group are emitted together under one header (the day they were said). */
  group?: string;
}

/** The recent tail's share of the message budget when relevant earlier messages compete for it. */
export const TAIL_SHARE_WITH_EPISODES = 0.1;
/** An excerpt takes about this share of the episodes' allowance: one passage at 2k tokens, more above. */
export const EXCERPT_SHARE = 0.1;

const DETAILS: Record<PriorityTierName, DetailLevelName[]> = {
  critical: ["full"],
  important: ["full", "summary", "micro"],
  useful: ["full", "summary"],
  minimal: ["full", "summary", "micro"],
  irrelevant: [],
};

/** A date-grouped message line's form without its stamp, with what it was made from. */
export interface UndatedForm {
  speaker: string;
  stamp: string;
  tokens: number;
  form: { text: string; tokens: number };
}

/** The memo tables this file reads (CompilerMemos holds them). */
export interface PackMemos extends MaskMemos, TranscriptMemos, ClaimsAgainstMemos, ExcerptMemos {
  /**
   * `- ` and the text, as the same string object for the same text: a warm compile places mostly the
   * lines it placed last time, and later passes look each line up in their own memos, which costs a
   * fresh string a copy and a hash of all its characters but a held one neither.
   */
  bullets: BoundedMap<string, string>;
  /**
   * Undated forms of date-grouped message lines, by the counter that measured them and the stored text:
   * retrieval brings back the same earlier messages query after query, and the same string each time
   * reaches the masking and counting memos already hashed.
   */
  undatedForms: WeakMap<(text: string) => number, BoundedMap<string, UndatedForm>>;
}

function bulleted(body: string, memos: PackMemos): string {
  let line = memos.bullets.get(body);
  if (line === undefined) line = memos.bullets.remember(body, `- ${body}`);
  return line;
}

/** Sections whose message lines are grouped under the day they were said (see src/compiler/transcript.ts). */
const grouped = (section: SectionName) => section === "episodes";

export interface PackInput {
  budgetTokens: number;
  factsShare: number;
  /**
   * The share of what remains that state items and facts may take together (layer-shares.ts); 1, or
   * absent, bounds neither beyond `factsShare` for facts.
   */
  stateShare?: number;
  fixedTokens: number;
  rules: Ranked[];
  environment: Ranked[];
  items: Ranked[];
  working: Ranked[];
  facts: Ranked[];
  retrieved: Ranked[];
  /** Retrieved earlier messages, with their retrieval score. */
  episodes: Ranked[];
  /** Retrieval's score and similarity by message id, tail messages included. */
  retrieval: Map<string, { score: number; similarity: number }>;
  messages: Ranked[];
  background: Ranked[];
  /** The compiling thread: the background facts it wrote go before other threads' (see the end of pack). */
  threadId: string;
  /** The query's terms (lexical.ts), for choosing the passages of a long message. */
  queryTerms: readonly string[];
  dead: DeadClaim[];
  /** Whether a message is the caller's own turn: dead claims weigh on it differently (claims-against.ts). */
  ownTurn?: OwnTurn;
  count: (text: string) => number;
  memos: PackMemos;
  /** The pending entities each fact names, by fact id (none when absent). */
  pending?: ReadonlyMap<string, readonly PendingReference[]>;
}

export function pack(input: PackInput): { placed: Placed[]; omitted: Omission[] } {
  const placed: Placed[] = [];
  const omitted: Omission[] = [];
  const opened = new Set<SectionName>(["environment"]);
  // input.count remembers what it counted (CompileCache.countWith), so repeated headers cost a lookup.
  const headerCost = (section: SectionName) => input.count(`${SECTIONS[section].title}\n`) + 2;
  let remaining = input.budgetTokens - input.fixedTokens;

  const groupHeaderCost = (group: string) => input.count(groupHeader(group)) + 1;

  /** The text a detail level puts on the line, with its stored count: undated in a date-grouped section. */
  const formIn = (r: Ranked, detail: DetailLevelName, dated: boolean) => {
    const stored = formOf(r.object, detail);
    if (!stored) return null;
    return dated ? undated(r.object, stored) : stored;
  };

  const { memos } = input;
  const render = (r: Ranked, form: { text: string; tokens: number }) => {
    const pending = r.object.kind === "fact" ? input.pending?.get(r.object.objectId) : undefined;
    const step = ladderStep(r, pending !== undefined);
    const dead =
      r.object.kind === "message"
        ? claimsAgainst(r.object, input.ownTurn?.(r.object) ?? false, input.dead, memos)
        : input.dead;
    // Only a rule the pending entities kept from binding says so on its line.
    const held = pending && ladderStep(r) === "hard_constraint" ? pending.map((p) => p.name) : [];
    const body = phrase(step, r.object, maskClaims(form.text, dead, memos), held);
    const line = r.object.kind === "message" ? body : bulleted(body, memos);
    // Stored counts are exact for the stored text; phrasing and bullets add a few tokens.
    const tokens =
      form.tokens +
      (line.length - form.text.length > 0 ? 3 : 1) +
      (held.length ? input.count(pendingNote(held)) : 0);
    return {
      line,
      compiledAs: step,
      tokens,
      ...(pending ? { pendingEntities: pending.map((p) => p.entityId) } : {}),
    };
  };

  /**
   * In a date-grouped section a message line drops its timestamped stamp for its speaker's name: the
   * day is said once in the group's header, which saves most of the ~18 tokens a stamp costs per line.
   */
  function undated(o: ContextObject, form: { text: string; tokens: number }) {
    const t = o.transcript;
    if (!t || !form.text.startsWith(t.stamp)) return form;
    const memo = perList(memos.undatedForms, input.count, () => new BoundedMap(MEMO_LIMITS.undatedForms));
    const held = memo.get(form.text);
    if (held && held.speaker === t.speaker && held.stamp === t.stamp && held.tokens === form.tokens) {
      return held.form;
    }
    const label = `${t.speaker}: `;
    const result = {
      text: `${label}${form.text.slice(t.stamp.length)}`,
      tokens: Math.max(1, form.tokens - (input.count(t.stamp) - input.count(label))),
    };
    memo.remember(form.text, { speaker: t.speaker, stamp: t.stamp, tokens: form.tokens, form: result });
    return result;
  }

  /** Fills one section within `allowance`; returns what it spent. */
  const fill = (section: SectionName, ranked: Ranked[], allowance: number): number => {
    let spent = 0;
    const keptHere: Placed[] = [];
    const groups = new Set<string>();
    const dated = grouped(section);
    const excerpts = new Map<ContextObject, Excerpt>();
    /**
     * The detail levels an object may take here. A long retrieved message is whole when it fits and
     * otherwise takes its excerpt, never its summary: the passages that answer the query say more than
     * the message's opening. One of the recent tail is whole whenever it fits (see below for when it
     * is excerpted).
     */
    const detailsOf = (r: Ranked): readonly DetailLevelName[] => {
      if ((section !== "episodes" && section !== "messages") || r.object.kind !== "message") {
        return DETAILS[r.tier];
      }
      const excerpt = excerptOf(
        r.object,
        input.queryTerms,
        memos,
        Math.floor((allowance * EXCERPT_SHARE) / PASSAGE_TOKENS),
      );
      if (!excerpt) return DETAILS[r.tier];
      excerpts.set(r.object, excerpt);
      if (section === "messages") {
        // In the tail, a long message that does not fit whole is excerpted where it answers the query
        // when the tail is the whole conversation (a document pasted into a short thread); beside
        // retrieved earlier messages it keeps its summary, the tail's tenth of the budget being theirs
        // to spend (an excerpt there cost bench:beam @8k 0.011).
        return input.episodes.length === 0 && excerpt.matched ? ["full", "excerpt"] : DETAILS[r.tier];
      }
      return ["full", "excerpt"];
    };
    /** A detail level's text and count; an excerpt is made for this query, so counted here. */
    const formFor = (r: Ranked, detail: DetailLevelName, undatedForm: boolean) => {
      if (detail !== "excerpt") return formIn(r, detail, undatedForm);
      const excerpt = excerpts.get(r.object);
      if (!excerpt) return null;
      const form = { text: excerpt.text, tokens: input.count(excerpt.text) };
      return undatedForm ? undated(r.object, form) : form;
    };
    // The section header's cost until its first line is placed, taken once rather than per candidate.
    let sectionHeader = opened.has(section) ? 0 : headerCost(section);
    for (const r of ranked) {
      // What cannot fit even at its cheapest detail level is left out without looking at the object:
      // on a large thread, most of the background (see the lower bound below).
      if (!dated && r.floor !== undefined && spent + r.floor + 1 + sectionHeader > allowance) {
        omitted.push({ object: r.object, reason: "over_budget", tier: r.tier });
        continue;
      }
      const group = dated && r.object.transcript ? dateGroupOf(r.object.ts, memos) : undefined;
      const header = sectionHeader + (group === undefined || groups.has(group) ? 0 : groupHeaderCost(group));
      let fitted = false;
      for (const detail of detailsOf(r)) {
        // A rendered line costs at least its form's count and one token: what cannot fit even then is
        // not rendered at all, which spares masking and phrasing for the thousands that miss the budget.
        // (A date-grouped message line sheds its stamp, so there the bound is the undated form's count.)
        let form = dated || detail === "excerpt" ? formFor(r, detail, dated) : null;
        const tokens = form ? form.tokens : dated ? undefined : formTokens(r.object, detail);
        if (tokens === null || tokens === undefined) continue;
        if (spent + tokens + 1 + header > allowance) continue;
        form ??= formFor(r, detail, false);
        if (!form) continue;
        const rendered = render(r, form);
        const cost = rendered.tokens + header;
        if (spent + cost > allowance) continue;
        spent += cost;
        opened.add(section);
        sectionHeader = 0;
        if (group !== undefined) groups.add(group);
        keptHere.push({
          object: r.object,
          section,
          detail,
          tier: r.tier,
          ...rendered,
          ...(group === undefined ? {} : { group }),
        });
        fitted = true;
        break;
      }
      if (!fitted) omitted.push({ object: r.object, reason: "over_budget", tier: r.tier });
    }
    placed.push(...keptHere);
    return spent;
  };

  remaining -= fill("rules", input.rules, Math.max(0, remaining));
  remaining -= fill("environment", input.environment, Math.max(0, remaining));
  // Stored state's bound when the question's evidence is in the conversation (layer-shares.ts).
  let stateLeft =
    (input.stateShare ?? 1) < 1 ? Math.floor(Math.max(0, remaining) * (input.stateShare ?? 1)) : Infinity;
  const itemsSpent = fill("state", input.items, Math.max(0, Math.min(remaining, stateLeft)));
  remaining -= itemsSpent;
  stateLeft -= itemsSpent;
  remaining -= fill("working", input.working, Math.max(0, remaining));
  remaining -= fill(
    "facts",
    input.facts,
    Math.max(0, Math.min(Math.floor(remaining * input.factsShare), stateLeft)),
  );
  remaining -= fill("retrieved", input.retrieved, Math.max(0, remaining));
  if (input.episodes.length > 0) {
    // On a long conversation the answer is rarely in the last turns: relevance takes most of the
    // message budget, the recent tail a tenth of it. A retrieved tail message the tail had no room
    // for competes again among the episodes.
    remaining -= fillTail(input.messages, Math.floor(Math.max(0, remaining) * TAIL_SHARE_WITH_EPISODES));
    const displaced = input.messages.filter(
      (r) => input.retrieval.has(r.object.objectId) && !placed.some((p) => p.object === r.object),
    );
    for (const r of displaced) {
      const at = omitted.findIndex((o) => o.object === r.object && o.reason === "over_budget");
      if (at >= 0) omitted.splice(at, 1);
    }
    const pool = [
      ...input.episodes,
      ...displaced.map((r) => {
        const found = input.retrieval.get(r.object.objectId);
        return { ...r, score: found?.score ?? 0, relevance: found?.similarity ?? 0 };
      }),
    ];
    remaining -= fillEpisodes(pool, Math.max(0, remaining));
  } else {
    remaining -= fillTail(input.messages, Math.max(0, remaining));
  }
  // The thread's own background (the facts it wrote, its state items) goes before the facts other
  // threads wrote: in a project many threads write to, theirs are the newest and would fill what is
  // left, crowding out the conversation's own state. A project one thread writes has none of theirs.
  const background = { own: [] as Ranked[], state: [] as Ranked[], others: [] as Ranked[] };
  for (const r of input.background) {
    if (r.object.kind !== "fact") background.state.push(r);
    else if (r.object.sessionId === input.threadId) background.own.push(r);
    else background.others.push(r);
  }
  remaining -= fill("facts", background.own, Math.max(0, remaining));
  remaining -= fill("state", background.state, Math.max(0, remaining));
  if (background.others.length) fill("facts", background.others, Math.max(0, remaining));
  return { placed, omitted };

  /**
   * Most relevance per token first into the allowance (episode-value.ts); the kept lines
   * read in chronological order.
   */
  function fillEpisodes(pool: Ranked[], allowance: number): number {
    const value = new Map(pool.map((r) => [r, episodeValue(r.relevance, r.object.tokens)]));
    const best = [...pool].sort(
      (a, b) =>
        (value.get(b) as number) - (value.get(a) as number) ||
        b.score - a.score ||
        a.object.ts.localeCompare(b.object.ts) ||
        a.object.objectId.localeCompare(b.object.objectId),
    );
    const before = placed.length;
    const spent = fill("episodes", best, allowance);
    const kept = placed
      .splice(before)
      .sort(
        (a, b) =>
          a.object.ts.localeCompare(b.object.ts) || a.object.objectId.localeCompare(b.object.objectId),
      );
    placed.push(...kept);
    return spent;
  }

  /** The newest messages win the tail; they are emitted oldest first so the transcript reads in order. */
  function fillTail(messages: Ranked[], allowance: number): number {
    const chronological = (a: Ranked | Placed, b: Ranked | Placed) =>
      a.object.ts.localeCompare(b.object.ts) || a.object.objectId.localeCompare(b.object.objectId);
    const before = placed.length;
    const spent = fill("messages", [...messages].sort(chronological).reverse(), allowance);
    placed.push(...placed.splice(before).sort(chronological));
    return spent;
  }
}
