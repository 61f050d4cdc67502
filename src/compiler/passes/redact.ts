/**
 * Secret and PII redaction, run over every compiled line for callers without clearance. Pure and
 * fast: every pattern is compiled once, and none nests quantifiers, so matching stays linear in the
 * line's length whatever it contains.
 *
 * Detection reads a normalised form of the text (NFKC, format characters such as zero-width spaces
 * removed, dash lookalikes as "-"), so a key split by invisible characters or a card written in
 * fullwidth digits is still found. A line with nothing to redact is returned exactly as given; a line
 * with something to redact is returned in its normalised form, markers in place.
 *
 * Clearance rule: secrets (api_key, password, private_key) are shown only to a caller whose
 * identity.permissions include "secrets:read"; PII (ssn, ni_number, card_number) only with "pii:read".
 * When the request lists roles, a clearance also has to be among them: request roles narrow what the
 * identity was granted and never widen it. Authority rank grants no clearance: an executive is not
 * entitled to read a stray API key.
 */

import type { Identity } from "../../domain/identity";
import type { RedactionKind } from "../../domain/redaction";

export type RedactionCounts = Partial<Record<RedactionKind, number>>;

export interface Clearance {
  secrets: boolean;
  pii: boolean;
}

export const SECRETS_PERMISSION = "secrets:read";
export const PII_PERMISSION = "pii:read";

const lower = (s: string) => s.trim().toLowerCase();

export function clearanceFrom(identity: Identity, requestRoles?: string[]): Clearance {
  const granted = new Set((identity.permissions ?? []).map(lower));
  const acting = requestRoles ? new Set(requestRoles.map(lower)) : null;
  const holds = (permission: string) => granted.has(permission) && (!acting || acting.has(permission));
  return { secrets: holds(SECRETS_PERMISSION), pii: holds(PII_PERMISSION) };
}

export const marker = (kind: RedactionKind) => `[REDACTED:${kind}]`;

/** Vendor key formats with a fixed prefix: matching them needs no context. */
const VENDOR_KEY = new RegExp(
  [
    "\\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}",
    "\\b[spr]k_(?:live|test)_[A-Za-z0-9]{16,}",
    "\\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\\b",
    "\\bgh[pousr]_[A-Za-z0-9]{36,}",
    "\\bgithub_pat_[A-Za-z0-9_]{22,}",
    "\\bxox[abposr]-[A-Za-z0-9-]{10,}",
    "\\bAIza[0-9A-Za-z_-]{35}",
    "\\beyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}",
    "\\bglpat-[A-Za-z0-9_-]{20,}",
    "\\bhf_[A-Za-z0-9]{30,}",
    "\\bnpm_[A-Za-z0-9]{36}\\b",
    "\\bxapp-[0-9]-[A-Za-z0-9-]{10,}",
    "\\bwhsec_[A-Za-z0-9+/=]{24,}",
    "\\bSG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}",
  ].join("|"),
  "g",
);

/** "api_key: …", "token=…", "Authorization: Bearer …": the value only counts if it looks random. */
const LABELLED_KEY =
  /\b((?:api|access|secret|private|client|auth)[_ -]?(?:key|token|secret)|apikey|secret|token|bearer)(["']?\s{0,3}(?:[:=]|\bis\b)\s{0,3}["']?(?:bearer\s+)?|\s+)([A-Za-z0-9_\-./+=]{16,})/gi;

/**
 * Where a password, passphrase, passcode or PIN is given: the label, then its glue ("is", ":", "=",
 * "was set to", "'s"). What the secret is, is decided by `passwordSpan` on the text that follows, up to
 * the sentence end: a passphrase is several words ("the password is correct horse battery staple").
 */
const PASSWORD_LABEL =
  /\b(password|passwd|passphrase|pass phrase|passcode|pass code|pwd|pin(?: code| number)?)\b(["']?(?:\s{0,3}[:=]\s{0,3}|'s\s{1,3}|\s{1,3}(?:is|was)(?:\s{1,3}(?:now|still))?(?:\s{1,3}(?:set|changed|reset|updated)\s{1,3}to)?(?:\s{0,3}:)?\s{1,3}|\s{1,3}(?:has\s{1,3}been\s{1,3})?(?:set|changed|reset|updated)\s{1,3}to\s{1,3}))/gi;
/** "PIN 4921", "pin code 4921": a PIN needs no glue when digits follow at once. */
const PIN_BARE = /\b(pin(?: code| number)?)(\s{1,3})(?=\d{4,8}\b)/gi;
const PIN_LABEL = /^pin/i;
/** A PIN is one short token with a digit in it. */
const PIN_VALUE = /^(?=[A-Za-z0-9-]{0,11}\d)[A-Za-z0-9-]{4,12}/;

/** The secret ends where its sentence does: ". ", "!", "?", ";", a line break, an opening bracket. */
const SENTENCE_END = /[.!?](?=\s|$)|[;\n(]|\s[-\u2013\u2014]\s/;
const MAX_SECRET = 200;
const QUOTES: Record<string, string> = {
  '"': '"',
  "'": "'",
  "`": "`",
  "\u201c": "\u201d",
  "\u2018": "\u2019",
};

/**
 * Words that, first after "password is", describe the password rather than being it ("the password is
 * required", "… is in the vault", "… is not working").
 */
const DESCRIBING_LEAD = new Set(
  (
    "a an the this that it its my your our their his her not no too also very really still now being " +
    "been stored saved kept written managed shared required needed set reset changed updated expired " +
    "missing empty blank same different case case-sensitive in on at for to of with by from as if so " +
    "and or but because when what something somewhere unknown listed included provided sent attached " +
    "hidden visible locked below above there here about over under only just probably likely definitely " +
    "always never usually currently already supposed going getting"
  ).split(" "),
);
/** Adjectives that describe a password when alone or followed by a function word ("correct now"). */
const DESCRIBING_ADJECTIVE = new Set(
  (
    "correct right wrong incorrect invalid valid fine ok okay good bad weak strong secure insecure long " +
    "short easy hard simple complex old new known compromised temporary default"
  ).split(" "),
);
/** Words that, after an adjective, show it was a description ("the password is wrong again"). */
const FOLLOWERS = new Set(
  (
    "now again though too and but so for to in on at because i it this that the a enough already anyway " +
    "yet as when if after before then please thanks sir btw either is was with from until since by of"
  ).split(" "),
);
/** After a one-word secret, a connector that opens a new clause ends it ("hunter2 and my username …"). */
const NEW_CLAUSE =
  /^,?\s{0,3}(?:(?:and|but|so|or|then|which|while)\s{1,3})?(?:my|the|his|her|our|their|your|i|we|you|it|he|she|they|please|use|log|sign|username|user|login)\b/i;

const PASSWORD_LIKE = /[\d!@#$%^&*_+=~]/;
const strip = (word: string) => word.replace(/^[("'`]+|[)"'`,:;.!?]+$/g, "").toLowerCase();

/**
 * How many characters of `rest` (the text after a password label and its glue) are the secret; 0 when
 * what follows describes the password instead of giving it.
 */
export function passwordSpan(rest: string, label: string): number {
  const open = rest[0] ?? "";
  const close = QUOTES[open];
  if (close) {
    const end = rest.indexOf(close, 1);
    return end > 1 && end <= MAX_SECRET && !rest.slice(0, end).includes("\n") ? end + 1 : 0;
  }
  const token = /^\S{1,200}/.exec(rest)?.[0] ?? "";
  // Already a marker (a key redacted above): nothing is left to hide.
  if (!token || token.startsWith("[REDACTED")) return 0;
  if (PIN_LABEL.test(label)) return PIN_VALUE.exec(token)?.[0].length ?? 0;
  const window = rest.slice(0, MAX_SECRET);
  const stop = SENTENCE_END.exec(window);
  const sentence = (stop ? window.slice(0, stop.index) : window).trimEnd();
  const words = sentence.split(/\s+/).filter(Boolean);
  const first = strip(token);
  if (!first) return 0;
  if (DESCRIBING_LEAD.has(first)) return 0;
  if (DESCRIBING_ADJECTIVE.has(first) && (words.length <= 1 || FOLLOWERS.has(strip(words[1] ?? ""))))
    return 0;
  // One word, or one word then a new clause: the token is the secret, its trailing punctuation too.
  // So is a token that looks like a password ("7781", "Tr0ub4dor&3") before a function word.
  const next = rest.slice(token.length).trimStart();
  if (words.length <= 1 || NEW_CLAUSE.test(next)) return token.length;
  if (PASSWORD_LIKE.test(token) && FOLLOWERS.has(strip(words[1] ?? ""))) return token.length;
  return sentence.length;
}

/**
 * The passwords, passphrases, passcodes and PINs a text gives, as `redact` would find them, for the
 * extractor's classification: "the password is correct horse battery staple" gives the whole phrase.
 */
export function passwordValues(text: string): string[] {
  const normal = normalizeForDetection(text);
  if (!PASSWORD_WORD.test(normal)) return [];
  const found: string[] = [];
  for (const pattern of [PASSWORD_LABEL, PIN_BARE]) {
    for (const m of normal.matchAll(pattern)) {
      const valueAt = m.index + m[0].length;
      const span = passwordSpan(normal.slice(valueAt, valueAt + MAX_SECRET + 2), m[1] ?? "");
      if (span > 0) found.push(normal.slice(valueAt, valueAt + span).replace(TRAILING_PUNCTUATION, ""));
    }
  }
  return found.filter((value) => value.length > 0);
}

const TRAILING_PUNCTUATION = /^["'`\u201c\u2018]|["'`\u201d\u2019.,;:!?]+$/g;

/** Replaces each password, passphrase, passcode or PIN the label introduces, keeping label and glue. */
function redactPasswords(text: string, count: () => void): string {
  let out = "";
  let from = 0;
  const take = (pattern: RegExp) => {
    out = "";
    from = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      const valueAt = m.index + m[0].length;
      const span = passwordSpan(text.slice(valueAt, valueAt + MAX_SECRET + 2), m[1] ?? "");
      if (span === 0) continue;
      out += text.slice(from, valueAt) + marker("password");
      count();
      from = valueAt + span;
      pattern.lastIndex = from;
    }
    text = out + text.slice(from);
  };
  take(PASSWORD_LABEL);
  if (/pin/i.test(text)) take(PIN_BARE);
  return text;
}

const PRIVATE_KEY_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
const PRIVATE_KEY_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;

// Area 000, 666 and 900-999, group 00 and serial 0000 are never issued.
// Dashed, spaced or dotted, one separator throughout, and not part of a longer run of digit groups
// (a phone number or an account number): 3-2-4 is a shape dates and prices never take.
const SSN_GROUPED = /(?<!\d[ .-]?)(?!000|666|9\d\d)\d{3}([ .-])(?!00)\d{2}\1(?!0000)\d{4}(?![ .-]?\d)/g;
const SSN_LABELLED =
  /\b(SSN|social security(?: number| no\.?)?)(\s{0,3}[:#]?\s{0,3}(?:is\s{1,3})?)(\d{3}\s?\d{2}\s?\d{4})\b/gi;

// HMRC: first letter not D F I Q U V, second not D F I O Q U V; a few prefixes are never issued.
const NI_NUMBER = /\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g;
const NI_UNUSED_PREFIX = new Set(["BG", "GB", "NK", "KN", "TN", "NT", "ZZ"]);

/** 13-19 digits, a single space, dot or dash allowed between them; shape and Luhn decide. */
const CARD_CANDIDATE = /(?<![0-9])[0-9](?:[ .-]?[0-9]){12,18}(?![0-9])/g;
const CARD_SEPARATOR = /([ .-])/;

function shannonBitsPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Random tokens mix letters and digits and spread over many symbols; words and paths do not. */
export function looksRandom(value: string): boolean {
  return /[A-Za-z]/.test(value) && /[0-9]/.test(value) && shannonBitsPerChar(value) >= 3.5;
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Issuer ranges start with 2-6 (Mastercard 2-series, Amex, Visa, Mastercard, Discover/UnionPay). */
const isCardNumber = (digits: string) =>
  digits.length >= 13 && digits.length <= 19 && /^[2-6]/.test(digits) && luhnValid(digits);

/**
 * Printed cards group their digits in fours (Amex and Diners 4-6-5, 4-6-4; 19-digit cards end in a
 * group of 3), with one separator throughout. A run cut into other shapes (a decimal, a version, a
 * list of small numbers) is not a card however its digits add up.
 */
function cardShaped(digitGroups: string[], separators: string[]): boolean {
  if (digitGroups.length === 1) return true;
  if (separators.some((sep) => sep !== separators[0])) return false;
  return digitGroups.every((group) => group.length >= 3 && group.length <= 6);
}

/**
 * A candidate run may carry extra digit groups around the card ("order 12 4111 1111 1111 1111"), so
 * when the whole run fails, contiguous groups are tried; the run has at most 19 groups.
 */
function redactCardRun(run: string, count: () => void): string {
  const groups = run.split(CARD_SEPARATOR);
  if (groups.length === 1) {
    if (!isCardNumber(run)) return run;
    count();
    return marker("card_number");
  }
  const digitsOnly = groups.filter((_, i) => i % 2 === 0);
  const lengthBefore = [0];
  for (const group of digitsOnly) lengthBefore.push((lengthBefore.at(-1) ?? 0) + group.length);
  for (let start = 0; start < digitsOnly.length; start++) {
    for (let end = digitsOnly.length; end > start; end--) {
      const length = (lengthBefore[end] ?? 0) - (lengthBefore[start] ?? 0);
      if (length < 13 || length > 19) continue;
      const separators = groups.slice(start * 2 + 1, end * 2 - 1).filter((_, i) => i % 2 === 0);
      if (!cardShaped(digitsOnly.slice(start, end), separators)) continue;
      if (!isCardNumber(digitsOnly.slice(start, end).join(""))) continue;
      count();
      const before = groups.slice(0, start * 2).join("");
      const after = groups.slice(end * 2 - 1).join("");
      return `${before}${marker("card_number")}${after}`;
    }
  }
  return run;
}

function redactPrivateKeys(text: string, count: () => void): string {
  if (!text.includes("PRIVATE KEY-----")) return text;
  let out = "";
  let from = 0;
  PRIVATE_KEY_BEGIN.lastIndex = 0;
  for (;;) {
    PRIVATE_KEY_BEGIN.lastIndex = from;
    const begin = PRIVATE_KEY_BEGIN.exec(text);
    if (!begin) break;
    PRIVATE_KEY_END.lastIndex = begin.index + begin[0].length;
    const end = PRIVATE_KEY_END.exec(text);
    // A block cut off before its END line is still key material: redact to the end of the text.
    const stop = end ? end.index + end[0].length : text.length;
    out += text.slice(from, begin.index) + marker("private_key");
    count();
    from = stop;
  }
  return out + text.slice(from);
}

/** A text as a caller may see it, and how many values of each kind were replaced. */
export interface RedactedText {
  text: string;
  redactions: RedactionCounts;
}

/**
 * The one entry point for every path that shows stored text to a caller (compile, GET routes): the
 * text redacted exactly as a compile redacts it for that clearance (`clearanceFrom(identity, roles)`).
 * Pure and stable; callers must not mutate the result's counts.
 */
export function redactText(text: string, clearance: Clearance): RedactedText {
  return redact(text, clearance);
}

/**
 * A JSON value (a fact's value) redacted string by string, for read paths that return values rather
 * than lines. Each string is read with its key before it ("password: hunter2"), as a compile reads the
 * fact's rendered line, so a secret named only by its key is still found. `key` is the fact's key.
 */
export function redactValue(
  value: unknown,
  clearance: Clearance,
  key?: string,
): { value: unknown; redactions: RedactionCounts } {
  const redactions: RedactionCounts = {};
  const walk = (node: unknown, label: string | undefined, depth: number): unknown => {
    if (typeof node === "string") {
      const labelled = label ? `${label}: ` : "";
      const result = redact(labelled + node, clearance);
      addCounts(redactions, result.redactions);
      if (!Object.keys(result.redactions).length) return node;
      if (labelled && result.text.startsWith(labelled)) return result.text.slice(labelled.length);
      const alone = redact(node, clearance);
      return Object.keys(alone.redactions).length
        ? alone.text
        : marker(Object.keys(result.redactions)[0] as RedactionKind);
    }
    // Depth is bounded by the write path; the guard only keeps a pathological value from recursing far.
    if (depth > 64 || node === null || typeof node !== "object") return node;
    if (Array.isArray(node)) return node.map((item) => walk(item, label, depth + 1));
    return Object.fromEntries(
      Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, walk(v, k, depth + 1)]),
    );
  };
  return { value: walk(value, key, 0), redactions };
}

// Anything outside printable ASCII may hide a secret behind a lookalike or an invisible character.
const NOT_PLAIN_ASCII = /[^\t\n\r\x20-\x7e]/;
const FORMAT_CHARACTERS = /\p{Cf}/gu;
/** Hyphen, dash and minus lookalikes NFKC leaves alone: a card or SSN may be grouped with any. */
const DASH_LOOKALIKES = /[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/g;

/**
 * The form detection reads: compatibility characters folded (fullwidth digits, non-breaking spaces),
 * format characters removed (zero-width spaces and joiners, soft hyphens, bidirectional controls) and
 * dash lookalikes made "-". Plain ASCII text, nearly every line, is its own normal form.
 */
export function normalizeForDetection(text: string): string {
  if (!NOT_PLAIN_ASCII.test(text)) return text;
  return text.normalize("NFKC").replace(FORMAT_CHARACTERS, "").replace(DASH_LOOKALIKES, "-");
}

const NOTHING: RedactedText["redactions"] = Object.freeze({}) as RedactionCounts;

/**
 * Replaces each secret or PII value the caller is not cleared for with a typed marker, keeping the
 * label ("password: [REDACTED:password]"), and counts redactions by kind. Values never leave here.
 * A text with nothing to redact comes back unchanged; one with something, in its normalised form.
 */
export function redact(text: string, clearance: Clearance): RedactedText {
  if (clearance.secrets && clearance.pii) return { text, redactions: {} };
  const redactions: RedactionCounts = {};
  const counter = (kind: RedactionKind) => () => {
    redactions[kind] = (redactions[kind] ?? 0) + 1;
  };
  let out = normalizeForDetection(text);
  if (!clearance.secrets) {
    out = redactPrivateKeys(out, counter("private_key"));
    const apiKey = counter("api_key");
    out = out.replace(VENDOR_KEY, () => {
      apiKey();
      return marker("api_key");
    });
    out = out.replace(LABELLED_KEY, (match, label: string, glue: string, value: string) => {
      if (!looksRandom(value)) return match;
      apiKey();
      return `${label}${glue}${marker("api_key")}`;
    });
    if (PASSWORD_WORD.test(out)) out = redactPasswords(out, counter("password"));
  }
  if (!clearance.pii && DIGIT.test(out)) {
    const card = counter("card_number");
    out = out.replace(CARD_CANDIDATE, (run) => redactCardRun(run, card));
    const ssn = counter("ssn");
    out = out.replace(SSN_GROUPED, () => {
      ssn();
      return marker("ssn");
    });
    out = out.replace(SSN_LABELLED, (_match, label: string, glue: string) => {
      ssn();
      return `${label}${glue}${marker("ssn")}`;
    });
    const ni = counter("ni_number");
    out = out.replace(NI_NUMBER, (match) => {
      if (NI_UNUSED_PREFIX.has(match.slice(0, 2))) return match;
      ni();
      return marker("ni_number");
    });
  }
  for (const _ in redactions) return { text: out, redactions };
  return { text, redactions: NOTHING };
}

const DIGIT = /\d/;
/** Every password label holds one of these; most lines hold none, and are spared the scan. */
const PASSWORD_WORD = /pass|pwd|pin/i;

/** Adds one line's counts into a running total for the trace. */
export function addCounts(total: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const [kind, n] of Object.entries(more) as [RedactionKind, number][]) {
    total[kind] = (total[kind] ?? 0) + n;
  }
  return total;
}
