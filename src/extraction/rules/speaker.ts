import { DEFAULT_AUTHORITY_LADDER } from "../../facts/authority";

/**
 * Who a statement comes from (seed 000, rule 3). Conversations carry authority three ways: a leading
 * tag ("[VP] …", "[BOARD] …", "[Mike (CFO)]: …", "David (Product Director): …"), an attribution
 * inside the sentence ("Per the CEO, …", "CFO says …", "The board decided …"), or the message's
 * speaker field. The title is passed on verbatim; the service's authority ladder ranks it.
 */

/** Ladder words that name a speaker role or a data source rather than someone's title. */
const NOT_TITLES = new Set(["user", "assistant", "agent", "system", "platform", "member", "peer", "staff"]);

const TITLE_WORDS = new Set<string>();
const TITLE_PHRASES: string[] = [];
for (const tier of DEFAULT_AUTHORITY_LADDER) {
  if (!NOT_TITLES.has(tier.name)) TITLE_WORDS.add(tier.name);
  for (const word of tier.words) if (!NOT_TITLES.has(word)) TITLE_WORDS.add(word);
  for (const phrase of tier.phrases ?? []) TITLE_PHRASES.push(phrase);
}
// Common short forms the ladder ranks through their long forms.
for (const extra of ["pm", "gm", "hr", "mgr", "directors", "managers", "executives", "vps", "counsel"]) {
  TITLE_WORDS.add(extra);
}

const TITLE_SPLIT = /[^a-z0-9+-]+/;

/** True when some word of the text is a title on the authority ladder ("VP Sales", "the board"). */
export function isTitle(text: string): boolean {
  const lower = text.toLowerCase().trim();
  if (!lower || lower.length > 60) return false;
  if (TITLE_PHRASES.some((p) => lower.includes(p))) return true;
  for (const word of lower.split(TITLE_SPLIT)) {
    if (word && TITLE_WORDS.has(word.replace(/\+$/, ""))) return true;
  }
  return false;
}

const BRACKET_TAG = /^\s*\[([^\]]{1,80})\]\s*:?\s*/;
const MARKER_TAG =
  /^(?:restricted|confidential|highly[ _]restricted|internal|public|scope|secret|private)\b/i;
const NAME_TITLE = /^(.*?)\s*\(([^)]{1,50})\)$/;
const NAMED_SPEAKER =
  /^([A-Z][\w.'&-]*(?:\s+(?:of|the|and|&|[A-Z][\w.'&-]*)){0,4})\s*\(([^)]{2,50})\)\s*:\s*/;
const TITLE_COLON = /^([A-Z][\w&+-]*(?:\s+[A-Z][\w&+-]*){0,2})\s*:\s+/;

function titleOf(content: string): string | null {
  const named = NAME_TITLE.exec(content.trim());
  if (named) {
    const name = (named[1] ?? "").trim();
    const title = (named[2] ?? "").trim();
    if (isTitle(title)) return title;
    if (isTitle(name)) return name;
    return null;
  }
  return isTitle(content) ? content.trim() : null;
}

export interface LeadingTags {
  /** The message text without its leading speaker/authority tags (marker tags are kept). */
  body: string;
  authority: string | null;
}

/** Reads and removes leading authority tags; the most specific (last) title wins. */
export function readLeadingTags(text: string): LeadingTags {
  let body = text;
  let authority: string | null = null;
  const kept: string[] = [];
  for (let i = 0; i < 4; i++) {
    const tag = BRACKET_TAG.exec(body);
    if (!tag) break;
    const content = tag[1] ?? "";
    if (MARKER_TAG.test(content)) kept.push(tag[0].trim());
    else authority = titleOf(content) ?? authority;
    body = body.slice(tag[0].length);
  }
  const named = NAMED_SPEAKER.exec(body);
  if (named) {
    const title = (named[2] ?? "").trim();
    const name = (named[1] ?? "").trim();
    const found = isTitle(title) ? title : isTitle(name) ? name : null;
    if (found) {
      authority = found;
      body = body.slice(named[0].length);
    }
  } else {
    const titled = TITLE_COLON.exec(body);
    if (titled && isTitle(titled[1] ?? "") && (titled[1] ?? "").split(" ").length <= 3) {
      authority = (titled[1] ?? "").trim();
      body = body.slice(titled[0].length);
    }
  }
  return { body: kept.length ? `${kept.join(" ")} ${body}` : body, authority };
}

/** The speaker field, when it names a title ("CFO", "Mike (CFO)") rather than a role or a name. */
export function speakerAuthority(speaker: string | null): string | null {
  if (!speaker) return null;
  return titleOf(speaker);
}

const ATTRIBUTION_LEAD =
  /^(?:per|according to|as per|on behalf of|at the request of|as directed by|as instructed by|on the orders of)\s+(?:the\s+|our\s+|my\s+)?([A-Za-z][\w&+'-]*(?:\s+[A-Za-z][\w&+'-]*){0,3}?)\s*,\s*/i;
const REPORTING =
  /^(?:the\s+|our\s+|my\s+)?([A-Za-z][\w&+-]*(?:\s+[A-Za-z][\w&+-]*){0,2}?)\s+(?:just\s+|has\s+|have\s+|now\s+)?(?:says|said|confirmed|confirms|wants|announced|announces|directed|instructed|told us|tells us|informed us|clarified|stated|states|reports|reported|mentioned|notes|noted)\b(?:\s+that)?[\s,:]*/i;
const ACTING =
  /^(?:the\s+|our\s+|my\s+)?([A-Za-z][\w&+-]*(?:\s+[A-Za-z][\w&+-]*){0,2}?)\s+(?:just\s+|has\s+|have\s+|now\s+)?(?:decided|approved|mandated|requires|required|ruled|signed off|agreed|determined|set|cut|raised|capped|overrode|overrides|rescinded|rejected|vetoed|reduced|increased|froze|cancelled|canceled|delegated|authorized|authorised)\b/i;
const PER_INLINE =
  /\b(?:per|approved by|decided by|mandated by|set by|confirmed by|signed off by|requested by)\s+(?:the\s+|our\s+)?([A-Za-z][\w&+-]*(?:\s+[A-Za-z][\w&+-]*)?)/gi;
const PRONOUN = /^(?:i|we|you|they|he|she|it|this|that|someone|everyone|nobody)$/i;

const CONNECTOR = /^(?:of|the|and|&|for)$/i;

/**
 * Stricter than isTitle, for a phrase found inside a sentence: every word is a title word, a
 * capitalized name or department, or a connector ("VP Sales", "Head of Legal", "the board"), so
 * "Executive signing bonuses" is not a person.
 */
function isTitlePhrase(phrase: string): boolean {
  const words = phrase.trim().split(/\s+/);
  if (words.length === 0 || words.length > 4 || !isTitle(phrase)) return false;
  return words.every(
    (w) => CONNECTOR.test(w) || /^[A-Z]/.test(w) || TITLE_WORDS.has(w.toLowerCase().replace(/\+$/, "")),
  );
}

export interface Attribution {
  authority: string | null;
  /** The sentence with a reporting frame removed ("CFO says the budget is …" → "the budget is …"). */
  rest: string;
}

/** Authority named inside one sentence, and the sentence without its reporting frame. */
export function readAttribution(sentence: string): Attribution {
  const lead = ATTRIBUTION_LEAD.exec(sentence);
  if (lead) {
    const who = (lead[1] ?? "").trim();
    return { authority: isTitlePhrase(who) ? who : null, rest: sentence.slice(lead[0].length) };
  }
  const reporting = REPORTING.exec(sentence);
  if (reporting) {
    const who = (reporting[1] ?? "").trim();
    if (!PRONOUN.test(who) && isTitlePhrase(who)) {
      return { authority: who, rest: sentence.slice(reporting[0].length) };
    }
  }
  const acting = ACTING.exec(sentence);
  if (acting) {
    const who = (acting[1] ?? "").trim();
    if (!PRONOUN.test(who) && isTitlePhrase(who)) return { authority: who, rest: sentence };
  }
  PER_INLINE.lastIndex = 0;
  for (let m = PER_INLINE.exec(sentence); m !== null; m = PER_INLINE.exec(sentence)) {
    const words = (m[1] ?? "").trim().split(/\s+/);
    // "per executive decision" names the executive; "per unit" names nobody.
    for (const candidate of [words.join(" "), words[0] ?? ""]) {
      if (candidate && isTitle(candidate)) return { authority: candidate, rest: sentence };
    }
  }
  return { authority: null, rest: sentence };
}
