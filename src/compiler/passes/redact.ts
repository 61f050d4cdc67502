/**
 * Secret and PII redaction, run over every compiled line for callers without clearance. Pure and
 * fast: every pattern is compiled once, and none nests quantifiers, so matching stays linear in the
 * line's length whatever it contains.
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
  ].join("|"),
  "g",
);

/** "api_key: …", "token=…", "Authorization: Bearer …": the value only counts if it looks random. */
const LABELLED_KEY =
  /\b((?:api|access|secret|private|client|auth)[_ -]?(?:key|token|secret)|apikey|secret|token|bearer)(["']?\s{0,3}(?:[:=]|\bis\b)\s{0,3}["']?(?:bearer\s+)?|\s+)([A-Za-z0-9_\-./+=]{16,})/gi;

const PASSWORD =
  /\b(password|passwd|passphrase|passcode|pwd)(["']?\s{0,3}(?:[:=]|\bis\b)\s{0,3})("[^"\n]{1,200}"|'[^'\n]{1,200}'|[^\s,;"']{1,200})/gi;
/** After "password is", words that describe the password rather than being it. */
const NOT_A_PASSWORD = new Set([
  "required",
  "wrong",
  "incorrect",
  "invalid",
  "expired",
  "correct",
  "missing",
  "empty",
  "not",
  "too",
  "the",
  "a",
  "set",
  "reset",
  "changed",
  "still",
  "being",
  "now",
  "weak",
  "strong",
]);

const PRIVATE_KEY_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
const PRIVATE_KEY_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;

// Area 000, 666 and 900-999, group 00 and serial 0000 are never issued.
const SSN_DASHED = /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g;
const SSN_LABELLED =
  /\b(SSN|social security(?: number| no\.?)?)(\s{0,3}[:#]?\s{0,3})(\d{3}\s?\d{2}\s?\d{4})\b/gi;

// HMRC: first letter not D F I Q U V, second not D F I O Q U V; a few prefixes are never issued.
const NI_NUMBER = /\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g;
const NI_UNUSED_PREFIX = new Set(["BG", "GB", "NK", "KN", "TN", "NT", "ZZ"]);

/** 13-19 digits, single spaces or dashes allowed between them; the Luhn check decides. */
const CARD_CANDIDATE = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g;

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
 * A candidate run may carry extra digit groups around the card ("order 12 4111 1111 1111 1111"), so
 * when the whole run fails, contiguous groups are tried; the run has at most 19 groups.
 */
function redactCardRun(run: string, count: () => void): string {
  if (isCardNumber(run.replace(/[ -]/g, ""))) {
    count();
    return marker("card_number");
  }
  const groups = run.split(/([ -])/);
  const digitsOnly = groups.filter((_, i) => i % 2 === 0);
  const lengthBefore = [0];
  for (const group of digitsOnly) lengthBefore.push((lengthBefore.at(-1) ?? 0) + group.length);
  for (let start = 0; start < digitsOnly.length; start++) {
    for (let end = digitsOnly.length; end > start; end--) {
      if (start === 0 && end === digitsOnly.length) continue;
      const length = (lengthBefore[end] ?? 0) - (lengthBefore[start] ?? 0);
      if (length < 13 || length > 19) continue;
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

/**
 * Replaces each secret or PII value the caller is not cleared for with a typed marker, keeping the
 * label ("password: [REDACTED:password]"), and counts redactions by kind. Values never leave here.
 */
export function redact(text: string, clearance: Clearance): RedactedText {
  const redactions: RedactionCounts = {};
  const counter = (kind: RedactionKind) => () => {
    redactions[kind] = (redactions[kind] ?? 0) + 1;
  };
  let out = text;
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
    const password = counter("password");
    out = out.replace(PASSWORD, (match, label: string, glue: string, value: string) => {
      if (/\bis\b/i.test(glue) && NOT_A_PASSWORD.has(value.toLowerCase())) return match;
      password();
      return `${label}${glue}${marker("password")}`;
    });
  }
  if (!clearance.pii) {
    const card = counter("card_number");
    out = out.replace(CARD_CANDIDATE, (run) => redactCardRun(run, card));
    const ssn = counter("ssn");
    out = out.replace(SSN_DASHED, () => {
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
  return { text: out, redactions };
}

/** Adds one line's counts into a running total for the trace. */
export function addCounts(total: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const [kind, n] of Object.entries(more) as [RedactionKind, number][]) {
    total[kind] = (total[kind] ?? 0) + n;
  }
  return total;
}
