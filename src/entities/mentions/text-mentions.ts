import type { EntityMetadata, EntityType, Mention, MentionOrigin } from "../../domain/entities";
import { DESCRIPTOR_AFTER_DETERMINER, DESCRIPTOR_CAPITALISED, descriptorName } from "./descriptors";
import { ROLE_ABBREVIATIONS, ROLE_FORM, roleName } from "./roles";
import {
  CALENDAR_WORDS,
  COMMON_ACRONYMS,
  COMMON_CAPITALISED,
  FUNCTION_WORDS,
  HONORIFICS,
  LABEL_WORDS,
  ORGANISATION_ENDINGS,
  PERSON_VERBS,
  PLACE_ENDINGS,
  TITLE_WORDS,
} from "./words";

/**
 * The offline rules that find entity mentions in text (a fact's value, a message, tool output). Each
 * rule claims the characters it matched, in order from the most to the least specific, so "the prompt
 * repo" is one system and not a capitalised word besides. Kinds of language, not lists of names:
 * addresses and handles, paths and URLs, document ids, role descriptions, "the X team/repo/office",
 * "Project X", capitalised names (typed by their endings and the words around them) and acronyms.
 */

/** A mention and where in its text it stands. */
export type PlacedMention = Mention & { start: number; end: number };

const URL = /\bhttps?:\/\/[^\s<>"'`)\]]+/g;
// The domain ends in a name ("v2.4.1" in "actions-gh-pages@v2.4.1" is a version, not a domain).
const EMAIL = /(?<![\w.+-])([A-Za-z0-9._%+-]+)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\b/g;
const HANDLE = /(?<![\w@.])@([A-Za-z][A-Za-z0-9_.-]{0,38}[A-Za-z0-9_])/g;
const ABSOLUTE_PATH = /(?<![\w:/.@-])(?:~|\.{1,2})?\/[\w.-]+(?:\/[\w.-]+)+\/?/g;
const RELATIVE_PATH = /(?<![\w/.@-])[\w-]+(?:\/[\w.-]+)*\/[\w-]+\.[A-Za-z]{1,5}\b/g;
const DOCUMENT_ID = /\b[A-Z][A-Z0-9]{1,9}(?:-[A-Z0-9]+)*-\d+[A-Z0-9]*\b/g;
const SYSTEM_CODE = /\b[A-Z]{2,}(?:-[A-Z0-9]{1,8}){2,}\b/g;
const ROLE = new RegExp(
  `\\b(?:our|the|my|your|their|his|her)\\s+(?:(?:new|former|acting|interim|deputy)\\s+)?(${ROLE_FORM.source})\\b`,
  "gi",
);
const BARE_ROLE = new RegExp(`\\b(${Object.keys(ROLE_ABBREVIATIONS).join("|").toUpperCase()})\\b`, "g");
/** A name right after a word, on its line: what makes a capitalised "Project" the start of "Project X". */
const PROJECT_NAME_AFTER = /^[ \t]+[A-Z]/;
// On one line: "Initialize the Project\nCreate a …" names no project.
const PROJECT =
  /\b(?:Project|Operation|Initiative|Programme|Program)[ \t]+([A-Z][\w-]*(?:[ \t]+[A-Z][\w-]*){0,2})/g;
const NAME_WORD = "\\p{Lu}[\\p{L}'’]*(?:-\\p{L}+)*";
const CAPITALISED = new RegExp(
  `(?<![\\p{L}\\p{N}/.@-])${NAME_WORD}(?:[ \\t]+(?:(?:of|de|van|von|der|da|di|&)[ \\t]+)?${NAME_WORD})*(?![\\p{N}-])`,
  "gu",
);

/** Prefixes of codes that are standards, not documents ("UTF-8", "SHA-256"). */
const STANDARD_PREFIXES = /^(?:UTF|SHA|ISO|MD|TLS|SSL|HTTP|IPV|UTC|GMT|AES|RSA|COVID|GPT|ES|PEP|RFC)-/;

/** Local parts of shared mailboxes: a team, not a person. */
const SHARED_MAILBOXES =
  /^(?:support|info|help|billing|sales|admin|noreply|no-reply|team|ops|security|hr|finance|legal|contact|hello|accounts|accounting|invoices|payments|payroll|orders|careers|jobs|press|media|marketing|office|reception|enquiries|inquiries|feedback|service|webmaster|postmaster)$/i;

class Claims {
  private readonly spans: { start: number; end: number }[] = [];
  free(start: number, end: number): boolean {
    return this.spans.every((s) => end <= s.start || start >= s.end);
  }
  claim(start: number, end: number): void {
    this.spans.push({ start, end });
  }
}

interface Scan {
  text: string;
  origin: MentionOrigin;
  claims: Claims;
  found: PlacedMention[];
}

function add(
  scan: Scan,
  start: number,
  text: string,
  fields: {
    name: string;
    type: EntityType;
    strength?: "strong" | "weak";
    aliases?: string[];
    metadata?: EntityMetadata;
  },
): boolean {
  const end = start + text.length;
  if (!scan.claims.free(start, end)) return false;
  scan.claims.claim(start, end);
  scan.found.push({
    text,
    name: fields.name,
    type: fields.type,
    strength: fields.strength ?? "strong",
    aliases: fields.aliases ?? [],
    metadata: fields.metadata ?? {},
    origin: scan.origin,
    start,
    end,
  });
  return true;
}

function addresses(scan: Scan): void {
  const noisy = NOISY_ORIGINS.has(scan.origin);
  for (const m of scan.text.matchAll(URL)) {
    const url = m[0].replace(/[.,;:!?]+$/, "");
    // A local address in conversation is a developer's machine, not a document.
    const strength = noisy && LOCAL_URL.test(url) ? "weak" : "strong";
    add(scan, m.index, url, { name: url, type: "document", strength, metadata: { url } });
  }
  for (const m of scan.text.matchAll(EMAIL)) {
    const email = m[0].replace(/\.+$/, "").toLowerCase();
    const domain = (m[2] as string).replace(/\.+$/, "").toLowerCase();
    const type = SHARED_MAILBOXES.test(m[1] as string) ? "team" : "person";
    add(scan, m.index, m[0].replace(/\.+$/, ""), {
      name: email,
      type,
      metadata: { email, email_domain: domain },
    });
  }
  for (const m of scan.text.matchAll(HANDLE)) {
    const handle = `@${(m[1] as string).toLowerCase()}`;
    // In conversation "@" also opens decorators and at-rules ("@app.route", "@media"): a handle there
    // only refers to one the registry holds.
    const strength = noisy ? "weak" : "strong";
    add(scan, m.index, m[0], { name: handle, type: "person", strength, metadata: { handle } });
  }
  for (const pattern of [ABSOLUTE_PATH, RELATIVE_PATH]) {
    for (const m of scan.text.matchAll(pattern)) {
      add(scan, m.index, m[0], { name: m[0], type: "document", metadata: { path: m[0] } });
    }
  }
}

function codes(scan: Scan): void {
  for (const m of scan.text.matchAll(DOCUMENT_ID)) {
    if (STANDARD_PREFIXES.test(m[0])) {
      scan.claims.claim(m.index, m.index + m[0].length);
      continue;
    }
    add(scan, m.index, m[0], { name: m[0], type: "document", metadata: { document_id: m[0] } });
  }
  for (const m of scan.text.matchAll(SYSTEM_CODE)) {
    add(scan, m.index, m[0], { name: m[0], type: "system", metadata: { document_id: m[0] } });
  }
}

function roles(scan: Scan): void {
  for (const m of scan.text.matchAll(ROLE)) {
    const words = m[1] as string;
    const role = roleName(words);
    if (!role) continue;
    const at = m.index + m[0].length - words.length;
    add(scan, at, words, {
      name: role.name,
      type: "role",
      aliases: role.abbreviation ? [role.abbreviation] : [],
    });
  }
  for (const m of scan.text.matchAll(BARE_ROLE)) {
    const role = roleName(m[0]) as { name: string; abbreviation?: string };
    add(scan, m.index, m[0], { name: role.name, type: "role", aliases: [m[0]] });
  }
}

function descriptors(scan: Scan): void {
  for (const pattern of [DESCRIPTOR_AFTER_DETERMINER, DESCRIPTOR_CAPITALISED]) {
    for (const m of scan.text.matchAll(pattern)) {
      const qualifier = m[1] as string;
      const described = descriptorName(qualifier, m[2] as string);
      if (!described) continue;
      // "Launch Project Phoenix": a capitalised "Project" before a name opens the project's name (PROJECT
      // below), it is not the head of "Launch Project".
      const end = m.index + m[0].length;
      if (
        described.type === "project" &&
        /^[A-Z]/.test(m[2] as string) &&
        PROJECT_NAME_AFTER.test(scan.text.slice(end))
      ) {
        continue;
      }
      const words = `${qualifier}${m[2]}`;
      const at = m.index + m[0].length - words.length;
      const plain = describedPlainly(scan, at, words, described, pattern === DESCRIPTOR_CAPITALISED);
      add(scan, at, words, {
        name: described.name,
        type: described.type,
        strength: plain ? "strong" : "weak",
        aliases: described.type === "project" ? [described.core] : [],
      });
    }
  }
  for (const m of scan.text.matchAll(PROJECT)) {
    const core = m[1] as string;
    const coreWords = core.split(/[ \t]+/);
    // "Project The …", "Project Next Steps": a sentence running on, not a project's name; "Project
    // Manager" is a title.
    if (COMMON_CAPITALISED.has((coreWords[0] as string).toLowerCase())) continue;
    if (TITLE_WORDS.has((coreWords.at(-1) as string).toLowerCase())) continue;
    const heading = headingLine(scan, m.index, m.index + m[0].length) || emphasised(scan, m.index);
    const strength = heading ? "weak" : "strong";
    add(scan, m.index, m[0], { name: `Project ${core}`, type: "project", strength, aliases: [core] });
  }
}

/**
 * Whether a descriptor in conversation names something plainly enough to create an entity: "the Kestrel
 * service", "the payments team", "the ingest pipeline". Conversation describes more than it names, so it
 * is weak there when
 * - it is a group in common words ("the support group", "a study group"): a gathering, not a team,
 *   or a place in common words ("the weather office"): a description, not a place's name;
 * - its qualifier is a technology's styling: camel case, a dotted domain or acronyms only ("the GitHub
 *   repo", "the Render.com dashboard", "the CI pipeline"), or its head is an acronym ("the Tindle CLI"):
 *   a tool's part rather than the user's own thing (teams aside: "the QA team");
 * - an indefinite article stands before it ("a Flask project", "a Webpack plugin"): a kind, not one thing;
 * - it opens a line or a sentence without a determiner ("Create Custom Report"), or stands in a heading
 *   or bold text, title case by convention.
 */
function describedPlainly(
  scan: Scan,
  at: number,
  written: string,
  described: { type: EntityType; qualifier: string; name: string },
  capitalisedOnly: boolean,
): boolean {
  if (!NOISY_ORIGINS.has(scan.origin)) return true;
  if (capitalisedOnly && opensLine(scan, at)) return false;
  if (emphasised(scan, at) || afterIndefinite(scan, at) || labelled(scan, at, at + written.length))
    return false;
  const words = described.qualifier.split(/\s+/);
  const capitalised = words.some((w) => /^\p{Lu}/u.test(w));
  if (/\bgroup$/i.test(described.name)) return capitalised;
  // A place is named by a proper name ("our Lisbon office", "the Harrow Street warehouse"); common nouns
  // in lower case before its head describe one ("the weather office", "the coffee warehouse").
  if (described.type === "place") return capitalised;
  if (described.type === "team") return true;
  // The head in capitals ("the Tindle CLI") is a product's part, as "Formspree API" is.
  const head = written.split(/\s+/).at(-1) as string;
  const technical =
    !/\p{Ll}/u.test(head) ||
    words.some((w) => /\p{Ll}\p{Lu}|\w\.\w/u.test(w)) ||
    words.every((w) => !/\p{Ll}/u.test(w));
  return !technical;
}

/** Whether an indefinite article stands right before `start` ("a Flask project", "an Airbnb style"). */
function afterIndefinite(scan: Scan, start: number): boolean {
  return /\b(?:a|an)\s+$/i.test(scan.text.slice(Math.max(0, start - 4), start));
}

/**
 * Whether `start` lies in a Markdown heading ("### 9. Use Modern Web Technologies") or inside bold text
 * ("**Create a New Data Studio Report**"), where conversation writes title case by convention.
 */
function emphasised(scan: Scan, start: number): boolean {
  if (!NOISY_ORIGINS.has(scan.origin)) return false;
  const line = scan.text.slice(scan.text.lastIndexOf("\n", start - 1) + 1, start);
  if (/^\s*#{1,6}\s/.test(line)) return true;
  return (line.match(/\*\*|__/g)?.length ?? 0) % 2 === 1;
}

/**
 * In conversation or tool output, words alone on their line ("## Project Structure", "**Project Setup**:")
 * are a heading, title case by convention rather than a name.
 */
function headingLine(scan: Scan, start: number, end: number): boolean {
  if (!NOISY_ORIGINS.has(scan.origin)) return false;
  const lineStart = scan.text.lastIndexOf("\n", start - 1) + 1;
  const lineEnd = scan.text.indexOf("\n", end);
  const before = scan.text.slice(lineStart, start);
  const after = scan.text.slice(end, lineEnd < 0 ? undefined : lineEnd);
  return /^[\s#>*_\-\d.)]*$/.test(before) && /^[\s*_:]*$/.test(after);
}

/** The type a capitalised run's own words and its neighbours give it. */
function typeOfName(scan: Scan, words: string[], start: number, end: number, hint?: EntityType): EntityType {
  const last = (words.at(-1) as string).toLowerCase().replace(/\.$/, "");
  if (ORGANISATION_ENDINGS.has(last)) return "organization";
  if (PLACE_ENDINGS.has(last)) return "place";
  const before = scan.text.slice(Math.max(0, start - 6), start);
  if (/\b(?:Mr|Mrs|Ms|Mx|Dr|Prof)\.?\s+$/.test(before)) return "person";
  const next = /^[ \t]+([a-z]+)/.exec(scan.text.slice(end))?.[1];
  const titleCase = words.every((w) => /^\p{Lu}\p{Ll}/u.test(w));
  if (titleCase && words.length <= 3 && next && PERSON_VERBS.has(next)) return "person";
  return hint ?? "other";
}

/** A role stated beside a name: "Dana Whitfield, our CFO" or "Dana Whitfield (head of finance)". */
function appositiveRole(scan: Scan, end: number): string | undefined {
  const after = scan.text.slice(end, end + 60);
  const form = new RegExp(`^\\s*[,(]\\s*(?:(?:our|the|my|their)\\s+)?(${ROLE_FORM.source})\\b`, "i").exec(
    after,
  );
  return form ? roleName(form[1] as string)?.name : undefined;
}

/**
 * "Marisol Reed <marisol@tidewater.io>": the address is the named person's, so its mention is folded
 * into the name's (as metadata) rather than standing as a person of its own.
 */
function addressBeside(scan: Scan, end: number): EntityMetadata | undefined {
  const bracket = /^[ \t]*[<(]/.exec(scan.text.slice(end));
  if (!bracket) return undefined;
  const at = end + bracket[0].length;
  const index = scan.found.findIndex((m) => m.start === at && m.metadata.email);
  if (index < 0) return undefined;
  const [address] = scan.found.splice(index, 1);
  return address?.metadata;
}

function capitalised(scan: Scan, hint?: EntityType): void {
  for (const m of scan.text.matchAll(CAPITALISED)) {
    let words = m[0].split(/[ \t]+/);
    let start = m.index;
    // Sentence openers and honorifics in front of a name are not part of it.
    while (
      words.length &&
      COMMON_CAPITALISED.has((words[0] as string).toLowerCase().split(/['’]/)[0] as string)
    ) {
      start += (words[0] as string).length;
      start += /^[ \t]*/.exec(scan.text.slice(start))?.[0].length ?? 0;
      words = words.slice(1);
    }
    if (words.length === 0) continue;
    // A possessive or a closing quote is not part of the name ("'Hot Streets'").
    let text = scan.text
      .slice(start, m.index + m[0].length)
      .replace(/['’]s$/, "")
      .replace(/['’]+$/, "");
    let titled = false;
    if (NOISY_ORIGINS.has(scan.origin)) ({ start, text, titled } = conversationalName(start, text));
    if (!text) continue;
    const end = start + text.length;
    words = text.split(/[ \t]+/);
    if (words.length === 1) {
      single(scan, text, start, end, titled ? "person" : hint);
      continue;
    }
    // A role beside a team's or a function's name ("Customer Success (CS Manager)") does not make it a person.
    const role = words.some((w) => FUNCTION_WORDS.has(w.toLowerCase()))
      ? undefined
      : appositiveRole(scan, end);
    const address = addressBeside(scan, end);
    const type = role || address || titled ? "person" : typeOfName(scan, words, start, end, hint);
    const weak =
      (type === "other" && noisyName(scan, words, start, end)) ||
      (type !== "person" && emphasised(scan, start));
    add(scan, start, text, {
      name: text,
      type,
      strength: weak ? "weak" : "strong",
      metadata: { ...address, ...(role ? { roles: [role] } : {}) },
    });
  }
}

/**
 * A capitalised run of conversation less what stands around a name: a title before it ("Manager Mia",
 * "VP Vince": the person, `titled`) and a date after it ("Launch March", "QA Feb").
 */
function conversationalName(
  start: number,
  written: string,
): { start: number; text: string; titled: boolean } {
  const words = written.split(/[ \t]+/);
  while (words.length > 1 && CALENDAR_WORDS.has((words.at(-1) as string).toLowerCase())) {
    words.pop();
    if (words.length > 1 && /^(?:of|de|da|di)$/i.test(words.at(-1) as string)) words.pop();
  }
  const lastTitle = words.slice(0, -1).findLastIndex((w) => TITLE_WORDS.has(w.toLowerCase()));
  if (lastTitle < 0) return { start, text: words.join(" "), titled: false };
  const dropped = words.slice(0, lastTitle + 1).join(" ");
  const at = start + written.indexOf(words[lastTitle + 1] as string, dropped.length);
  return { start: at, text: words.slice(lastTitle + 1).join(" "), titled: true };
}

/**
 * Conversation and tool output capitalise more than names: a sentence or a list item opens with a
 * capital ("Sounds Good To Me", "- **Next Steps**"), headings and log lines are title case, and code
 * names things in camel case ("TypeError"). In them an untyped run of capitals is only a weak mention
 * (it binds to a name the registry holds, never creates one) when it opens a sentence or a line, or
 * holds a camel-case word. A fact's value is written to be read as data, so its runs stay strong there.
 */
const NOISY_ORIGINS: ReadonlySet<MentionOrigin> = new Set(["message", "tool_output"]);
const LOCAL_URL = /^https?:\/\/(?:localhost|127\.|0\.0\.0\.0|\[::1\]|[\w.-]*example\.(?:com|org|net))/i;
const OPENS_LINE_OR_SENTENCE = /(?:^|[.!?:;][*_"')\]]*\s+|\n)(?:[\s\-*•#>_`"'([]|\d+[.)])*$/;

function noisyName(scan: Scan, words: readonly string[], start: number, end: number): boolean {
  if (!NOISY_ORIGINS.has(scan.origin)) return false;
  if (words.some((w) => /\p{Ll}\p{Lu}/u.test(w))) return true;
  // Capitals throughout ("EXPLAIN QUERY PLAN", "AM CET") are keywords, shouting or codes.
  if (words.every((w) => !/\p{Ll}/u.test(w))) return true;
  return opensLine(scan, start) || technicalTerm(scan, words, start, end);
}

/**
 * An untyped run of conversation that names a kind, a part or a label rather than one thing:
 * - a product's part, its last word an acronym ("Formspree API", "Sentry DSN", "SQLAlchemy ORM");
 * - a title ("Sales Manager", "Colour Technologist") or a time zone ("Japan Standard Time");
 * - a label: an error or a control named by the word after it ("the Too Many Requests error", "the
 *   'Unhandled Promise Rejection' warning", "Open Graph tags") or by a status code before it ("500
 *   Internal Server Error");
 * - a kind, after an indefinite article ("a Time Anchor").
 */
function technicalTerm(scan: Scan, words: readonly string[], start: number, end: number): boolean {
  const last = words.at(-1) as string;
  if (/^\p{Lu}[\p{Lu}\d]+$/u.test(last)) return true;
  if (TITLE_WORDS.has(last.toLowerCase()) || /^(?:time|zone)$/i.test(last)) return true;
  return labelled(scan, start, end) || afterIndefinite(scan, start);
}

/** Whether the words at [start, end) are a label: a label word after them, or a status code before. */
function labelled(scan: Scan, start: number, end: number): boolean {
  const after = /^["'”’`*_]*[ \t]+([a-z]+)/.exec(scan.text.slice(end, end + 40))?.[1];
  if (after && LABEL_WORDS.has(after)) return true;
  return /\b[1-5]\d\d[ \t]+$/.test(scan.text.slice(Math.max(0, start - 6), start));
}

/** Whether `start` opens a line or a sentence (list markers and emphasis aside). */
function opensLine(scan: Scan, start: number): boolean {
  // What stands before, from the text's start or a bounded look back (an "x" keeps `^` from matching there).
  const from = Math.max(0, start - 40);
  return OPENS_LINE_OR_SENTENCE.test(`${from === 0 ? "" : "x"}${scan.text.slice(from, start)}`);
}

/**
 * One capitalised word ("Atlas", "Sam") or an acronym ("AWS"): a weak mention, never a new entity alone.
 * After an honorific it is a person ("Mr Olsen"); at the start of a sentence, only when a person verb
 * follows ("Sam approved") or the text names a person ("owner: Sam"), as sentences open with
 * capitalised verbs ("Ask", "Meet").
 */
function single(scan: Scan, word: string, start: number, end: number, hint?: EntityType): void {
  if (word.length < 2 || HONORIFICS.has(word.toLowerCase())) return;
  const acronym = /^\p{Lu}{2,6}$/u.test(word);
  if (acronym && COMMON_ACRONYMS.has(word.toLowerCase())) return;
  const before = scan.text.slice(Math.max(0, start - 6), start);
  if (/\b(?:Mr|Mrs|Ms|Mx|Dr|Prof)\.?\s+$/.test(before)) {
    add(scan, start, word, { name: word, type: "person" });
    return;
  }
  const next = /^[ \t]+([a-z]+)/.exec(scan.text.slice(end))?.[1];
  const speaks = next !== undefined && PERSON_VERBS.has(next);
  const opensSentence = /(?:^|[.!?:;]\s+|\n\s*)$/.test(scan.text.slice(0, start));
  if (!acronym && !speaks && hint !== "person" && opensSentence) return;
  const type = acronym ? "other" : speaks ? "person" : (hint ?? "other");
  add(scan, start, word, { name: word, type, strength: "weak" });
}

/**
 * The mentions in one text. `hint` types the names the words leave untyped: the value of an `owner` key
 * names a person.
 */
export function textMentions(text: string, origin: MentionOrigin, hint?: EntityType): PlacedMention[] {
  const scan: Scan = { text, origin, claims: new Claims(), found: [] };
  addresses(scan);
  codes(scan);
  roles(scan);
  descriptors(scan);
  capitalised(scan, hint);
  return scan.found.sort((a, b) => a.start - b.start);
}
