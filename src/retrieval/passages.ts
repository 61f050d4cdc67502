/**
 * Passages of a long message (issue 16, item 6). Code, documents and logs pasted into a conversation run
 * to thousands of tokens, of which a question needs a paragraph or a function. Such a message is split,
 * when it is written, into passages of about PASSAGE_CHARS characters along its own structure: blank
 * lines first (paragraphs, code blocks), then line breaks, then sentence ends, then spaces. Retrieval
 * ranks the passages (the transcript's passage index) and the compiler packs the relevant ones with a
 * pointer to their message, instead of the whole message or nothing.
 *
 * The split is a pure function of the text, so the write path (indexing) and the compiler (choosing
 * what to show, from the text as gates and redaction left it) cut the same message the same way.
 */

/** A message longer than this many characters (about 400 tokens of prose) is split into passages. */
export const LONG_MESSAGE_CHARS = 1_600;
/** A passage's target length in characters: about 150 tokens of prose, fewer of dense code. */
export const PASSAGE_CHARS = 600;
/** About how many tokens a passage holds, for budgeting before one is counted. */
export const PASSAGE_TOKENS = 150;
/** No passage is longer than this, whatever the text's structure. */
const MAX_PASSAGE_CHARS = 1_000;

export interface PassageSpan {
  start: number;
  end: number;
}

/** Whether a message is long enough to be split and indexed by passage. */
export const isLongMessage = (text: string) => text.length > LONG_MESSAGE_CHARS;

/**
 * The passages of `text` as [start, end) character spans covering it in order (whitespace between
 * passages included in the earlier one). A text no longer than LONG_MESSAGE_CHARS is one passage.
 */
export function passageSpans(text: string): PassageSpan[] {
  if (!isLongMessage(text)) return [{ start: 0, end: text.length }];
  const spans: PassageSpan[] = [];
  let start = 0;
  while (start < text.length) {
    const end = cutAfter(text, start);
    spans.push({ start, end });
    start = end;
  }
  // A last scrap too short to stand alone joins the passage before it.
  const last = spans[spans.length - 1];
  const before = spans[spans.length - 2];
  if (
    last &&
    before &&
    last.end - last.start < PASSAGE_CHARS / 4 &&
    last.end - before.start <= MAX_PASSAGE_CHARS
  ) {
    spans.splice(-2, 2, { start: before.start, end: last.end });
  }
  return spans;
}

/** The passages' texts, trimmed. */
export function passages(text: string): string[] {
  return passageSpans(text).map((s) => text.slice(s.start, s.end).trim());
}

/** Where the passage starting at `start` ends: at the best boundary between the target and the maximum. */
function cutAfter(text: string, start: number): number {
  if (text.length - start <= MAX_PASSAGE_CHARS) return text.length;
  const window = text.slice(start, start + MAX_PASSAGE_CHARS);
  // Boundaries from the strongest down; the first kind found past half the target wins, taking its last
  // occurrence that does not pass the target by more than the maximum allows.
  for (const boundary of [/\n[ \t]*\n/g, /\n/g, /[.!?;:](?=\s)/g, /\s/g]) {
    let best = -1;
    for (const match of window.matchAll(boundary)) {
      const at = (match.index ?? 0) + match[0].length;
      if (at < PASSAGE_CHARS / 2) continue;
      if (best >= 0 && at > PASSAGE_CHARS) break;
      best = at;
    }
    if (best > 0) return start + best;
  }
  return start + MAX_PASSAGE_CHARS;
}
