import { splitSentences } from "./sentences";
import { isAcknowledgement } from "./signals";
import { contentWords } from "./text";
import { DATE, MONEY, moneyAmounts, PERCENT } from "./values";

/**
 * What a user turn does to the assistant turn right before it when it corrects it (seed 000: the user
 * is the source of the values, the assistant only repeats them). The phrase the assistant got wrong is
 * retired from the correcting turn on, so the compiler treats it like any replaced value: the
 * assistant turn that said it speaks from a dead state, and later quotations are masked.
 *
 * Only explicit evidence counts, and only a phrase the assistant turn holds is retired:
 * - a contrast naming the wrong word: "Brazilian Portuguese, not European!" after "European
 *   Portuguese" retires "European Portuguese";
 * - a flat rejection with a figure: "No, 10 Pacific." after "10am Eastern" retires "10am Eastern" (the
 *   same number in other terms);
 * - "I said X" (or "I meant X"): the one value of X's kind (a date, an amount, a percentage) the
 *   assistant turn gives instead, "Thursday" for "Tuesday";
 * - a misquoted amount the user does not accept: the user said "$4,800", the assistant repeated the
 *   turn with "$48,000" instead, and the next user turn is no acknowledgement.
 * A phrase too short to stand for its claim ("Thursday" would mask every Thursday) is retired as the
 * assistant's sentence that said it, which only that turn holds.
 */

/** "X, not Y" and "not Y, X" (after an optional "no,"). */
const X_NOT_Y =
  /^(?:no[,.!]*\s+)?([^,.!?;]{2,60}?),?\s+not\s+(?:the\s+|a\s+|an\s+)?([^,.!?;]{2,40}?)\s*(?:[,.!?;]|$)/i;
const NOT_Y_X =
  /^(?:no[,.!]*\s+)?not\s+(?:the\s+|a\s+|an\s+)?([^,.!?;]{2,40}?),\s*(?:it's\s+|it is\s+)?([^,.!?;]{2,60}?)\s*(?:[,.!?;]|$)/i;
/** "No, I said Tuesday", "I meant the 14th". */
const I_SAID = /^(?:(?:no|nope|wait|actually|sorry)[,.!]*\s+)?i\s+(?:said|meant|told you)\s+([^.!?;]{1,60})/i;
/** The kinds of value "I said X" can name, each as a pattern over the assistant's text. */
const KINDS = [DATE, MONEY, PERCENT].map((p) => new RegExp(p.source, "gi"));

/**
 * A turn that opens by rejecting what was just said and gives the figure straight after ("No, 10
 * Pacific", "Nope, it's 4 Central"); "No problem, 10am works" rejects nothing.
 */
const REJECTION =
  /^(?:no|nope|nah|not quite|wrong|that's wrong|that's not right)[,.!]*\s+(?:it's\s+|it is\s+|make it\s+)?(\d[^.!?;]{0,59})/i;
const NUMBER = /\b\d{1,4}\b/g;

const MAX_CONTRAST_WORDS = 3;
const wordCount = (s: string) => s.trim().split(/\s+/).length;
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The text of `phrase` in `text` as the text writes it, matched whole-word and case-insensitively. */
function find(text: string, phrase: string): string | null {
  const m = new RegExp(`(?<![\\w$])${literal(phrase.trim())}(?![\\w])`, "i").exec(text);
  return m ? m[0] : null;
}

/** The phrases of the assistant turn a user turn corrects; none without an explicit correction. */
export function correctedPhrases(assistant: string, user: string): string[] {
  return correctedIn(assistant, user.trim()).map((phrase) => standingFor(assistant, phrase));
}

/** Whether a phrase is long enough to stand for a claim (the compiler's `distinctive`). */
const distinctive = (phrase: string) => phrase.length >= 6 && /[\s\d$%]/.test(phrase);

/** The phrase itself when it is distinctive, else the assistant sentence that holds it. */
function standingFor(assistant: string, phrase: string): string {
  if (distinctive(phrase)) return phrase;
  const sentence = splitSentences(assistant).find((s) => find(s, phrase));
  return sentence ? sentence.replace(/[.!?]+$/, "") : phrase;
}

function correctedIn(assistant: string, first: string): string[] {
  const said = I_SAID.exec(first);
  if (said) return otherOfKind(assistant, (said[1] ?? "").trim());
  const contrast = X_NOT_Y.exec(first);
  const inverse = contrast ? null : NOT_Y_X.exec(first);
  const right = contrast?.[1] ?? inverse?.[2];
  const wrong = contrast?.[2] ?? inverse?.[1];
  // A contrast of values ("Oak, not pine"), not of wishes ("I want the quick version, not the full one").
  if (right && wrong && wordCount(right) <= MAX_CONTRAST_WORDS && wordCount(wrong) <= MAX_CONTRAST_WORDS) {
    const found = contrasted(assistant, right, wrong);
    if (found) return [found];
  }
  const rejection = REJECTION.exec(first);
  if (rejection) return rejectedFigures(assistant, rejection[1] ?? "");
  return [];
}

/** "I said Tuesday" after "see you Thursday": the one value of the same kind the assistant gave instead. */
function otherOfKind(assistant: string, right: string): string[] {
  for (const kind of KINDS) {
    kind.lastIndex = 0;
    const inRight = right.match(kind);
    if (!inRight) continue;
    const mine = new Set(inRight.map((v) => v.toLowerCase()));
    const others = new Set(
      [...assistant.matchAll(kind)].map((m) => m[0]).filter((v) => !mine.has(v.toLowerCase())),
    );
    return others.size === 1 ? [...others] : [];
  }
  return [];
}

/**
 * "Brazilian Portuguese, not European": the wrong word stands in for the right phrase's modifier, so
 * the assistant's phrase is the wrong word with the right phrase's head; failing that, the wrong word
 * itself. Either must be in the assistant turn, and the right phrase must not be.
 */
function contrasted(assistant: string, right: string, wrong: string): string | null {
  if (find(assistant, right)) return null;
  const head = right.trim().split(/\s+/).slice(1).join(" ");
  const candidates = head ? [`${wrong} ${head}`, wrong] : [wrong];
  for (const candidate of candidates) {
    const found = find(assistant, candidate);
    if (found) return found;
  }
  return null;
}

/**
 * "No, 10 Pacific" after "10am Eastern": the same number with other terms around it in the assistant
 * turn is what the user rejected. A number the assistant wrote with the user's own terms is kept.
 */
function rejectedFigures(assistant: string, replacement: string): string[] {
  const out: string[] = [];
  const said = replacement.toLowerCase();
  for (const n of new Set(replacement.match(NUMBER) ?? [])) {
    const around = new RegExp(
      `(?<![\\w$:.,])${n}(?::\\d{2})?\\s?(?:am|pm)?(?:\\s+[A-Z][a-z]+)?(?![\\w:%])`,
      "g",
    );
    for (const m of assistant.matchAll(around)) {
      const phrase = m[0].trim();
      if (phrase === n || said.includes(phrase.toLowerCase())) continue;
      out.push(phrase);
    }
  }
  return out;
}

/** An amount's digits without separators and trailing zeros: "$48,000" and "$4,800" both read "48". */
const digitsOf = (amount: string) => amount.replace(/\D/g, "").replace(/0+$/, "");

/** One digit off, or the same digits at another magnitude: how a figure is misquoted, not computed. */
function slipOf(said: string, repeated: string): boolean {
  const a = digitsOf(said);
  const b = digitsOf(repeated);
  if (!a || !b) return false;
  if (a === b) return said.replace(/\D/g, "") !== repeated.replace(/\D/g, "");
  const full = [said, repeated].map((x) => x.replace(/\D/g, ""));
  const [x, y] = full as [string, string];
  return x.length === y.length && [...x].filter((d, i) => d !== y[i]).length === 1;
}

/**
 * Amounts an assistant turn states in place of the user turn it repeats: it shares at least two content
 * words with the turn, says none of the turn's amounts, and says an amount that is a slip of one of
 * them ("$48,000" for "$4,800", "$6,800" for "$6,200"). A total or any other figure the assistant
 * worked out is not a misquote.
 */
export function misquotedAmounts(user: string, assistant: string): string[] {
  const amounts = (text: string) => moneyAmounts(text).map((a) => a.replace(/[,.]+$/, ""));
  const theirs = new Set(amounts(user));
  if (!theirs.size) return [];
  const ours = amounts(assistant);
  if (ours.some((a) => theirs.has(a))) return [];
  const words = new Set(contentWords(user));
  if (new Set(contentWords(assistant).filter((w) => words.has(w))).size < 2) return [];
  const slips = ours.filter((amount) => [...theirs].some((t) => slipOf(t, amount)));
  return [...new Set(slips)].flatMap((amount) => {
    const m = new RegExp(literal(amount).replace(/,/g, ",?"), "i").exec(assistant.replace(/\s+/g, " "));
    return m ? [m[0]] : [];
  });
}

/** Whether a user turn lets a misquote stand: an acknowledgement accepts it. */
export const accepts = (user: string) => isAcknowledgement(user);

/** "Yes, the 7th." / "Right, $20,000.": an affirmation and the value it affirms. */
const AFFIRMED =
  /^(?:yes|yep|yeah|yup|right|correct|exactly|that's right)[,.!]*\s+([^.!?;]{1,40}?)\s*(?:[.!]|$)/i;
/** Where an assistant question joins two proposals: each is weighed on its own. */
const JOIN = /,\s+(?:and|but|so)\s+|;\s*/i;

/**
 * An assistant question the user answers by affirming a value it proposed ("…, and the deadline moves
 * to the 7th?" / "Yes, the 7th."): the part of the question that holds the value, and the value. The
 * user's yes makes it the user's own statement; which slot the part names is for the caller to find.
 */
export function affirmedProposal(assistant: string, user: string): { part: string; value: string } | null {
  const m = AFFIRMED.exec(user.trim());
  const value = m?.[1]?.trim();
  if (!value || !/\?\s*$/.test(assistant.trim())) return null;
  const question = splitSentences(assistant).at(-1) ?? "";
  const part = question.split(JOIN).find((p) => find(p, value));
  return part ? { part, value } : null;
}
