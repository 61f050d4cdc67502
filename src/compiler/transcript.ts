import { humanDate } from "../retrieval/time-query";
import type { BoundedMap } from "./cache/memo-tables";

/**
 * Date-grouped transcript lines. Retrieved earlier messages come from many days; instead of stamping
 * each line with an ISO timestamp (~18 tokens), lines of the same day are emitted together under one
 * header naming the day in words, the form questions about time are asked and answered in (seed 001,
 * step 6: a rescued subunit may carry its session's date).
 */

/** The memo tables this file reads (CompilerMemos holds them). */
export interface TranscriptMemos {
  /** Days by timestamp: retrieval brings back the same earlier messages query after query. */
  days: BoundedMap<string, string>;
}

/** The group a message line belongs to: the UTC day it was said, in words ("8 May 2023"). */
export function dateGroupOf(ts: string, memos: TranscriptMemos): string {
  let day = memos.days.get(ts);
  if (day === undefined) day = memos.days.remember(ts, humanDate(ts));
  return day;
}

export const groupHeader = (group: string) => `[${group}]`;

/**
 * Lines in their given order, with a group's header before the first line of each run of that group.
 * Lines without a group are emitted as they are and end the current run.
 */
export function withGroupHeaders(lines: readonly { line: string; group?: string }[]): string[] {
  const out: string[] = [];
  let current: string | undefined;
  for (const { line, group } of lines) {
    if (group !== undefined && group !== current) out.push(groupHeader(group));
    current = group;
    out.push(line);
  }
  return out;
}
