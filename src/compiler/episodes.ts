import { type DeadClaim, maskClaims } from "./hygiene";
import type { SectionName } from "./render-sections";
import type { Candidate, EpisodeRecord, MessageRecord, Omission } from "./types";

/**
 * The episodes pass: earlier messages the thread retrieved for this query (see src/retrieval), placed
 * in their own section with the message budget the recent tail does not get. On a long conversation
 * the answer is rarely in the last few turns, so relevance takes most of the message budget.
 */

/** The recent tail's share of the message budget when relevant earlier messages compete for it. */
export const TAIL_SHARE_WITH_EPISODES = 0.1;

export interface EpisodePool {
  /** Retrieved messages older than the tail, through the same gate and hygiene as the tail. */
  beyondTail: Candidate[];
  /** Retrieved messages that are also tail candidates; they compete here if the tail had no room. */
  inTail: Set<string>;
  score: Map<string, number>;
}

export function relevantEpisodes(
  episodes: readonly EpisodeRecord[],
  tailInput: readonly MessageRecord[],
  hygienic: (records: MessageRecord[]) => Candidate[],
): EpisodePool {
  const tailIds = new Set(tailInput.map((m) => m.id));
  return {
    beyondTail: hygienic(episodes.filter((e) => !tailIds.has(e.id))),
    inTail: new Set(episodes.filter((e) => tailIds.has(e.id)).map((e) => e.id)),
    score: new Map(episodes.map((e) => [e.id, e.score])),
  };
}

interface PlacedLine {
  candidate: Candidate;
  section: SectionName;
  line: string;
}

/** Best score first into the allowance; the kept lines are emitted in chronological order. */
export function fillEpisodes(
  pool: EpisodePool,
  tail: readonly Candidate[],
  allowance: number,
  header: number,
  lineCost: (tokens: number) => number,
  placed: PlacedLine[],
  omitted: Omission[],
  dead: DeadClaim[],
): number {
  const inTailSection = new Set(
    placed.filter((p) => p.section === "messages").map((p) => p.candidate.objectId),
  );
  // A retrieved tail message the tail had no room for is no longer over budget: it competes again here.
  const displaced = tail.filter((c) => pool.inTail.has(c.objectId) && !inTailSection.has(c.objectId));
  for (const candidate of displaced) {
    const index = omitted.findIndex((o) => o.candidate === candidate && o.reason === "over_budget");
    if (index >= 0) omitted.splice(index, 1);
  }
  const ranked = [...pool.beyondTail, ...displaced].sort(
    (a, b) =>
      (pool.score.get(b.objectId) ?? 0) - (pool.score.get(a.objectId) ?? 0) ||
      a.ts.localeCompare(b.ts) ||
      a.objectId.localeCompare(b.objectId),
  );
  let spent = 0;
  const kept: PlacedLine[] = [];
  for (const candidate of ranked) {
    const cost = lineCost(candidate.tokens) + (kept.length ? 0 : header);
    if (spent + cost > allowance) {
      omitted.push({ candidate, reason: "over_budget" });
      continue;
    }
    spent += cost;
    kept.push({ candidate, section: "episodes", line: maskClaims(candidate.text, dead) });
  }
  kept.sort(
    (a, b) =>
      a.candidate.ts.localeCompare(b.candidate.ts) ||
      a.candidate.objectId.localeCompare(b.candidate.objectId),
  );
  placed.push(...kept);
  return spent;
}
