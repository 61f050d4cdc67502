/**
 * Small text helpers shared by the rule modules. Everything here is pure and allocation-light; the
 * regular expressions are compiled once, at module load.
 */

const WS = /\s+/g;
const NON_WORD = /[^a-z0-9]+/g;
const EDGE_UNDERSCORES = /^_+|_+$/g;
const QUOTE_CHARS = /[\u2018\u2019\u201b]/g;
const DQUOTE_CHARS = /[\u201c\u201d]/g;
const DASH_CHARS = /[\u2013\u2014]/g;

/** Curly quotes and long dashes to ASCII, whitespace collapsed: the form every rule reads. */
/**
 * A fenced code block (``` or ~~~, Markdown's fences) from its opening fence to its closing one, or to
 * the end of the text when it is never closed (a message cut short).
 */
const FENCED_CODE =
  /^[ \t]*(`{3,}|~{3,})[^\n]*(?:\n[\s\S]*?(?:\n[ \t]*\1[ \t]*(?=\n|(?![\s\S]))|(?![\s\S]))|(?![\s\S]))/gm;

/**
 * The text with its fenced code blocks left out, for the rules that read statements. Code pasted into
 * a conversation is not a statement of state: read as sentences, `border: 1px solid` or
 * `status = 'ok'` would become facts, and the next paste would "supersede" them and hide the turns
 * that carried them. Call before cleanText, which joins lines.
 */
export function withoutCode(text: string): string {
  // The block becomes a sentence end, so the prose before it ("Here is my code:") ends there too.
  return text.includes("```") || text.includes("~~~") ? text.replace(FENCED_CODE, "\n.\n") : text;
}

export function cleanText(text: string): string {
  return text
    .replace(QUOTE_CHARS, "'")
    .replace(DQUOTE_CHARS, '"')
    .replace(DASH_CHARS, " - ")
    .replace(WS, " ")
    .trim();
}

/** Lower-cased, whitespace-collapsed form used to compare values ("$50,000" vs "$50,000."). */
export function normalizeValue(value: string): string {
  return value
    .toLowerCase()
    .replace(/[.,;:!?]+$/, "")
    .replace(WS, " ")
    .trim();
}

/** snake_case key from free text: "Project Budget" → project_budget, "Bob's account" → bob_account. */
export function snake(text: string): string {
  return text.toLowerCase().replace(/'s\b/g, "").replace(NON_WORD, "_").replace(EDGE_UNDERSCORES, "");
}

export function capitalize(text: string): string {
  return text.length ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

/** Words too common to say anything about a topic or to link two values. */
export const STOPWORDS = new Set(
  (
    "a an the and or but if then so of to for in on at by with from into onto over under up down out " +
    "is are was were be been being am do does did have has had will would could should can may might must " +
    "i me my we us our you your he him his she her they them their it its this that these those there here " +
    "what which who whom whose when where why how not no yes all any some each every more most other such " +
    "only own same than too very just also now still already again about as let lets let's please ok okay " +
    "get got make made use using go going want need needs like one two new i'm we're i've we've it's " +
    "that's i'll we'll i'd we'd you're they're let's there's here's what's"
  ).split(" "),
);

const CONTENT_TOKEN = /[a-z0-9][a-z0-9'+-]*/g;

/** Content words of a text (lower-cased, stopwords and one-letter tokens removed). */
export function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const match of text.toLowerCase().matchAll(CONTENT_TOKEN)) {
    const word = match[0].replace(/'s$/, "");
    if (word.length > 1 && !STOPWORDS.has(word)) out.push(word);
  }
  return out;
}

/**
 * Discourse fillers at the start of a sentence that carry no content ("OK,", "By the way,", "No
 * wait,"). They are stripped repeatedly; the caller keeps the original text for change signals.
 */
const LEADING_FILLER =
  /^(?:(?:by the way|btw|fyi|no wait|wait a (?:sec|second|minute)|great news|good news|bad news|heads up|quick update|to be (?:absolutely )?clear|just to be clear|just confirming(?: again)?|to confirm|to recap|in summary|as of (?:today|now|this (?:week|morning|month))|going forward|from now on|effective (?:immediately|today)|for the record|one more thing|on second thought|(?:a )?slight change of plans?|change of plans?|that said|so|and|but|plus|also|then|actually|well|anyway|anyways|ok(?:ay)?|now|just|oh|ah)\b|(?:hypothetically|theoretically|in theory|ideally|realistically|frankly|personally|honestly speaking|no|nope|yes|yeah|yep|right|fine|great|sorry|wait|update|correction|note|important|urgent|reminder|remember|first|second|third|next|finally|lastly|however|honestly|basically|again|hey|hi|hello|thanks|thank you|hmm+|um+|alright|all right|perfect|cool|sure|understood|noted)\s*[,:!.-]+)[\s,:!.-]*/i;

export function stripFillers(text: string): string {
  let current = text.trim();
  for (let i = 0; i < 6; i++) {
    const next = current.replace(LEADING_FILLER, "");
    if (next === current || next.length === 0) break;
    current = next.trim();
  }
  return current;
}

/**
 * A leading adverbial clause that only sets the scene ("After the stakeholder meeting, …", "Per our
 * call, …") is cut at its comma so the main clause starts the sentence.
 */
const LEADING_ADVERBIAL =
  /^(?:after|before|following|since|given|with|based on|due to|because of|in light of|as discussed|as agreed|as mentioned|as of|starting|beginning|from|during|for|in|on|at|within|under|across|throughout|regarding|about|this quarter|this week|this month|today|tomorrow|next week|next month)\b[^,]{0,60},\s*/i;

export function stripAdverbial(text: string): string {
  return text.replace(LEADING_ADVERBIAL, "");
}
