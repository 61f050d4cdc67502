import { normalizeForDetection, passwordValues, redactText } from "../../compiler/passes/redact";
import { holdsRedactionPlaceholder } from "../../domain/redaction";
import { readMarkers } from "../../facts/markers";
import type { ItemClassification } from "../../items/types";

/**
 * Who may see what a message says. Three sources, strictest wins:
 * 1. explicit bracket markers, read by the shared `readMarkers` ("[RESTRICTED: … restricted to VP+]");
 * 2. handling phrases ("confidential", "internal only", "do not share outside HR", "HR only");
 * 3. secret-looking values (API keys, access keys, tokens, passwords, card and social security
 *    numbers), which make the statement `highly_restricted`.
 * Personnel matters (salary, medical, disciplinary) are confidential to HR.
 * Markers and handling instructions ("This is confidential", "Do not share outside HR") speak for the
 * whole message; a secret, a personnel matter or a sensitive word in passing ("the restricted API")
 * only for the statement it is in, so one code sample's placeholder key never classifies the rest.
 */

export interface ClassificationHint {
  classification: ItemClassification;
  allow_roles: string[];
}

export const PUBLIC: ClassificationHint = { classification: "public", allow_roles: [] };

const RANK: Record<ItemClassification, number> = {
  public: 0,
  restricted: 1,
  confidential: 2,
  highly_restricted: 3,
};

/** The stricter of two hints; allowed roles come from the stricter one (or both, when equally strict). */
export function strictest(a: ClassificationHint, b: ClassificationHint): ClassificationHint {
  const ra = RANK[a.classification];
  const rb = RANK[b.classification];
  if (ra > rb) return a;
  if (rb > ra) return b;
  const roles = [...new Set([...a.allow_roles, ...b.allow_roles])];
  return { classification: a.classification, allow_roles: roles };
}

const HIGHLY = /\b(?:strictly confidential|highly confidential|top secret|eyes only|highly restricted)\b/i;
/**
 * Handling instructions: what a message says of itself as a whole ("Do not share this", "This is
 * confidential", a leading "Confidential:"). They cover every statement of the message.
 */
const CONFIDENTIAL_HANDLING =
  /\b(?:do not share|don'?t share|do not forward|don'?t forward|do not disclose|don'?t disclose|keep (?:this|it) (?:between us|private|quiet|confidential)|off the record|not for distribution|(?:this|it|that)(?:'s| is) (?:strictly |highly )?(?:confidential|private|privileged|need[- ]to[- ]know))\b|^\s*confidential\b/im;
const RESTRICTED_HANDLING =
  /\b(?:internal(?: use)? only|for internal use|not for external|not public|(?:this|it|that)(?:'s| is) (?:restricted|internal))\b|^\s*(?:restricted|internal)\s*[:-]/im;
/** The same words inside a statement about something else classify that statement alone. */
const CONFIDENTIAL_WORD = /\b(?:confidential|need[- ]to[- ]know|privileged)\b/i;
const RESTRICTED_WORD = /\brestricted\b/i;
const SHARE_OUTSIDE =
  /\b(?:do not|don'?t|never) (?:share|forward|disclose|discuss)(?: this| it| that)? (?:outside(?: of)?|beyond|with anyone outside(?: of)?) (?:the |our )?([a-z][a-z+&-]*(?: [a-z][a-z+&-]*)?)/i;
const ONLY_FOR =
  /\b(?:only for|just for|for) (?:the )?([a-z][a-z+&-]*(?: team)?) (?:eyes only|only)\b|\b([a-z][a-z+&-]*\+?) (?:eyes )?only\b|\brestricted to (?:the )?([a-z][a-z+&-]*\+?(?: [a-z][a-z+&-]*)?)/i;
const GROUPS = new Set([
  "hr",
  "finance",
  "legal",
  "leadership",
  "executives",
  "exec",
  "execs",
  "security",
  "management",
  "managers",
  "board",
  "payroll",
  "c-suite",
  "vp",
  "vp+",
  "director+",
  "manager+",
  "engineering",
  "sales",
  "compliance",
  "people ops",
  "admins",
]);
const PERSONNEL =
  /\b(?:salary|salaries|compensation package|pay (?:raise|cut)|bonus(?:es)? for|severance|disciplinary|performance improvement plan|medical (?:leave|condition|records?)|diagnosis|health condition|disability|termination of|being terminated|being fired|background check)\b/i;

export interface SecretMatch {
  kind: string;
  value: string;
}

const SECRET_PATTERNS: [string, RegExp][] = [
  ["api_key", /\bsk-(?:proj-|live-|test-|ant-)?[A-Za-z0-9_-]{8,}/],
  ["aws_access_key", /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ["github_token", /\bgh[pousr]_[A-Za-z0-9]{20,}/],
  ["slack_token", /\bxox[abprs]-[A-Za-z0-9-]{10,}/],
  ["jwt", /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}/],
  ["private_key", /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ["ssn", /\b\d{3}-\d{2}-\d{4}\b/],
];
const LABELLED_SECRET =
  /\b(api[ _-]?key|secret(?:[ _-]key)?|access[ _-]?token|auth[ _-]?token|bearer token|token|password|passwd|passphrase|passcode|pin|credentials?|client secret)\s*(?:is|=|:|was set to|has been set to)\s*[`'"]?([^\s`'",;]{4,})/i;
const CARD = /\b(?:\d[ .-]?){12,18}\d\b/g;

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** A labelled secret must look like one: a digit or symbol in it, or a long token. */
function looksSecret(value: string): boolean {
  return /[\d!@#$%^&*_+=~-]/.test(value) || value.length >= 10;
}

/** No clearance at all: what an uncleared caller would see redacted is a secret to extraction too. */
const UNCLEARED = { secrets: false, pii: false };

/**
 * Secret values in a text, each with a kind usable as a slot key. Read in the form redaction reads
 * (zero-width characters removed, lookalikes folded), so a split key is still a key. A placeholder
 * ("[REDACTED:password]") is no secret value: it is what is left of one.
 */
export function findSecrets(input: string): SecretMatch[] {
  const text = normalizeForDetection(input);
  const found: SecretMatch[] = [];
  for (const [kind, pattern] of SECRET_PATTERNS) {
    const match = pattern.exec(text);
    if (match) found.push({ kind, value: match[0] });
  }
  const labelled = LABELLED_SECRET.exec(text);
  if (labelled) {
    const value = labelled[2] ?? "";
    const kind = (labelled[1] ?? "secret").toLowerCase().replace(/[ -]/g, "_");
    if (looksSecret(value) && !found.some((f) => f.value === value)) {
      found.push({ kind: kind === "passwd" ? "password" : kind, value });
    }
  }
  for (const match of text.matchAll(CARD)) {
    const digits = match[0].replace(/[ .-]/g, "");
    if (digits.length >= 13 && digits.length <= 19 && luhn(digits))
      found.push({ kind: "card_number", value: match[0] });
  }
  // "The password is correct horse battery staple", "my PIN is 4921": the phrase redaction hides.
  if (!found.some((f) => PASSWORD_KINDS.has(f.kind))) {
    const [phrase] = passwordValues(text);
    if (phrase) found.push({ kind: "password", value: phrase });
  }
  return found.filter((f) => !holdsRedactionPlaceholder(f.value));
}

const PASSWORD_KINDS = new Set(["password", "passphrase", "passcode", "pin"]);

/** Whether redaction would hide anything in the text from a caller without clearance. */
const redactsSomething = (text: string) => Object.keys(redactText(text, UNCLEARED).redactions).length > 0;

function group(raw: string | undefined): string | null {
  if (!raw) return null;
  const g = raw.trim().toLowerCase();
  const head = g.replace(/ team$/, "");
  if (GROUPS.has(g) || GROUPS.has(head) || g.endsWith("+")) return g;
  return null;
}

/**
 * What a message asks for as a whole: its markers and its handling instructions. A single sensitive
 * word, a secret or a personnel matter classifies only the statement it is in (classifyText).
 */
export function classifyMessage(text: string): ClassificationHint {
  return classify(text, false);
}

/** The classification one statement asks for, from markers, handling phrases, secrets and its topic. */
export function classifyText(text: string): ClassificationHint {
  return classify(text, true);
}

function classify(text: string, statement: boolean): ClassificationHint {
  let hint: ClassificationHint = PUBLIC;
  const markers = readMarkers(text);
  if (markers.classification) {
    hint = { classification: markers.classification, allow_roles: markers.allowRoles ?? [] };
  }
  if (statement && (findSecrets(text).length || redactsSomething(text)))
    hint = strictest(hint, { classification: "highly_restricted", allow_roles: [] });
  if (HIGHLY.test(text)) hint = strictest(hint, { classification: "highly_restricted", allow_roles: [] });
  if (!markers.classification) {
    const outside = SHARE_OUTSIDE.exec(text);
    const only = ONLY_FOR.exec(text);
    const roles = [group(outside?.[1]), group(only?.[1]), group(only?.[2]), group(only?.[3])].filter(
      (r): r is string => r !== null,
    );
    if (CONFIDENTIAL_HANDLING.test(text) || outside || (statement && CONFIDENTIAL_WORD.test(text))) {
      hint = strictest(hint, { classification: "confidential", allow_roles: roles });
    } else if (RESTRICTED_HANDLING.test(text) || roles.length || (statement && RESTRICTED_WORD.test(text))) {
      hint = strictest(hint, { classification: "restricted", allow_roles: roles });
    }
  }
  if (statement && PERSONNEL.test(text))
    hint = strictest(hint, { classification: "confidential", allow_roles: ["hr"] });
  return hint;
}
