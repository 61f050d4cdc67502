/**
 * Seed 004's detail levels. Every object is stored with a summary (~80 tokens at most) and a micro
 * form (~24 tokens at most) next to its full text, computed once at write time so that a compile only
 * chooses between stored forms and never summarises or counts on the hot path.
 */
export interface DetailForms {
  summary: string;
  summaryTokens: number;
  micro: string;
  microTokens: number;
}

export const SUMMARY_TOKENS = 80;
export const MICRO_TOKENS = 24;
const ELLIPSIS = "…";

/**
 * A token is rarely longer than a few characters, so no prefix of `limit` tokens reaches past this
 * many characters per token: a long message (up to 1 MiB) is shortened from its head alone.
 */
const MAX_CHARS_PER_TOKEN = 32;

/** The longest prefix of whole words, cut at a sentence end when one is close, that fits `limit`. */
export function truncateToTokens(text: string, limit: number, count: (text: string) => number): string {
  const whole = text.trim();
  const reach = limit * MAX_CHARS_PER_TOKEN;
  if (whole.length <= reach && count(whole) <= limit) return whole;
  const trimmed = whole.slice(0, reach);
  const sentences = trimmed.match(/[^.!?]+[.!?]+(?=\s|$)|[^.!?]+$/g) ?? [trimmed];
  let kept = "";
  for (const sentence of sentences) {
    const next = `${kept}${sentence}`;
    if (count(next.trim()) > limit) break;
    kept = next;
  }
  if (kept.trim() && count(kept.trim()) >= limit / 2) return kept.trim();
  const words = trimmed.split(/\s+/);
  // Binary search on the number of words: token counts grow monotonically with the prefix.
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(`${words.slice(0, mid).join(" ")}${ELLIPSIS}`) <= limit) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0) return `${words.slice(0, lo).join(" ")}${ELLIPSIS}`;
  // Not even the first word fits (a long URL, a JSON value with no spaces, a base64 blob): its head,
  // cut at a character, rather than nothing.
  const first = words[0] ?? "";
  let chars = 0;
  let most = Math.min(first.length, limit * MAX_CHARS_PER_TOKEN);
  while (chars < most) {
    const mid = Math.ceil((chars + most) / 2);
    if (count(`${first.slice(0, mid)}${ELLIPSIS}`) <= limit) chars = mid;
    else most = mid - 1;
  }
  return chars === 0 ? "" : `${first.slice(0, chars)}${ELLIPSIS}`;
}

/**
 * `prefix` (a timestamp and speaker, or a key) is kept whole in every form so a reduced object still
 * says where it came from; only the body is shortened.
 */
export function detailForms(body: string, count: (text: string) => number, prefix = ""): DetailForms {
  const prefixTokens = prefix ? count(prefix) : 0;
  const summary = `${prefix}${truncateToTokens(body, Math.max(8, SUMMARY_TOKENS - prefixTokens), count)}`;
  const micro = `${prefix}${truncateToTokens(body, Math.max(6, MICRO_TOKENS - prefixTokens), count)}`;
  return { summary, summaryTokens: count(summary), micro, microTokens: count(micro) };
}
