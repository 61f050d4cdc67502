import { sha256Hex } from "./sha256";
import {
  type CandidateItem,
  CONFIDENCES,
  type Confidence,
  type ItemClassification,
  type ItemScope,
  STATE_ITEM_TYPES,
  type StateItemType,
} from "./types";

/**
 * Pure rules for structured state items (seed 002): identity, status precedence, validation of
 * extractor output, and the change-language signals that gate supersession.
 */

const QUOTES = /["'\u2018\u2019\u201c\u201d]/g;
// Limited to three digits so a sentence opening with a year ("2024. ...") keeps its number.
const LEADING_BULLET = /^(?:[-*\u2022]|\d{1,3}\.)\s+/;

/**
 * The form two texts must share to be the same item: differences in case, spacing, quoting and list
 * markup are how the same statement resurfaces, not a different statement.
 */
export function normalizeText(text: string): string {
  return text
    .normalize("NFC")
    .toLowerCase()
    .replace(QUOTES, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(LEADING_BULLET, "")
    .trim();
}

export const UID_PREFIXES: Record<StateItemType, string> = {
  decision: "d_",
  constraint: "c_",
  action: "a_",
  question: "q_",
  risk: "r_",
};

/** Deterministic, so re-extracting the same statement lands on the same row instead of a duplicate. */
export function computeUid(typeTag: StateItemType, text: string): string {
  return UID_PREFIXES[typeTag] + sha256Hex(`${typeTag}:${normalizeText(text)}`).slice(0, 12);
}

/** Valid statuses per type, lowest precedence first, so a merge can never move an item backwards. */
export const STATUS_PRECEDENCE: Record<StateItemType, readonly string[]> = {
  action: ["open", "blocked", "done", "superseded"],
  question: ["open", "answered", "superseded"],
  decision: ["active", "superseded"],
  constraint: ["active", "superseded"],
  risk: ["active", "superseded"],
};

export const DEFAULT_STATUS: Record<StateItemType, string> = {
  action: "open",
  question: "open",
  decision: "active",
  constraint: "active",
  risk: "active",
};

export function isValidStatus(type: StateItemType, status: string): boolean {
  return STATUS_PRECEDENCE[type].includes(status);
}

/** The higher-precedence status; an invalid one never wins, and two invalid ones yield the default. */
export function resolveStatusMerge(type: StateItemType, a: string, b: string): string {
  const order = STATUS_PRECEDENCE[type];
  const winner = order.indexOf(a) >= order.indexOf(b) ? a : b;
  return order.includes(winner) ? winner : DEFAULT_STATUS[type];
}

export const CONFIDENCE_RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

export function maxConfidence(a: Confidence, b: Confidence): Confidence {
  return CONFIDENCE_RANK[a] >= CONFIDENCE_RANK[b] ? a : b;
}

export const MAX_TOPIC_TAGS = 3;

const SCOPES: readonly ItemScope[] = ["global", "task", "hypothetical", "draft", "session"];
const CLASSIFICATIONS: readonly ItemClassification[] = [
  "public",
  "restricted",
  "confidential",
  "highly_restricted",
];

export interface ValidationResult {
  item: CandidateItem | null;
  errors: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const oneOf = <T extends string>(values: readonly T[], value: unknown): value is T =>
  typeof value === "string" && (values as readonly string[]).includes(value);

const nonEmptyStrings = (values: unknown[]) =>
  values.filter((v): v is string => typeof v === "string" && v.trim() !== "").map((v) => v.trim());

/**
 * Checks one item proposed by an extractor (LLM output is untrusted JSON). Fixable faults are
 * repaired and reported; an item is rejected only when nothing trustworthy is left to keep: an
 * unknown type, no text, or refs that are not a list (refs are what ties an item to evidence).
 */
export function validateItem(candidate: unknown): ValidationResult {
  const errors: string[] = [];
  if (!isRecord(candidate)) return { item: null, errors: ["item: not an object"] };
  const type = candidate.type_tag;
  if (!oneOf(STATE_ITEM_TYPES, type)) return { item: null, errors: [`type_tag: unknown '${String(type)}'`] };
  const text = typeof candidate.text === "string" ? candidate.text.trim() : "";
  if (text === "") return { item: null, errors: ["text: empty"] };
  if (!Array.isArray(candidate.refs)) return { item: null, errors: ["refs: not an array"] };

  const refs = [...new Set(nonEmptyStrings(candidate.refs))];
  if (refs.length !== candidate.refs.length) errors.push("refs: dropped non-string, empty or repeated ids");

  let confidence: Confidence = "low";
  if (oneOf(CONFIDENCES, candidate.confidence)) confidence = candidate.confidence;
  else errors.push(`confidence: '${String(candidate.confidence)}' invalid, set to low`);

  let status = typeof candidate.status === "string" ? candidate.status.trim().toLowerCase() : "";
  if (!isValidStatus(type, status)) {
    errors.push(`status: '${String(candidate.status)}' invalid for ${type}, set to ${DEFAULT_STATUS[type]}`);
    status = DEFAULT_STATUS[type];
    // A guessed status is a guess about the whole item.
    confidence = "low";
  }

  let tags: string[] = [];
  if (Array.isArray(candidate.topic_tags)) {
    // Lower-cased so topic overlap in the reconciler is not defeated by capitalisation.
    tags = [...new Set(nonEmptyStrings(candidate.topic_tags).map((t) => t.toLowerCase()))];
  } else if (candidate.topic_tags !== undefined && candidate.topic_tags !== null) {
    errors.push("topic_tags: not an array, ignored");
  }
  if (tags.length > MAX_TOPIC_TAGS) {
    errors.push(`topic_tags: ${tags.length} given, kept the first ${MAX_TOPIC_TAGS}`);
    tags = tags.slice(0, MAX_TOPIC_TAGS);
  }

  const supersedes =
    typeof candidate.supersedes === "string" && candidate.supersedes.trim() !== ""
      ? candidate.supersedes.trim()
      : null;
  const allowRoles = Array.isArray(candidate.allow_roles) ? nonEmptyStrings(candidate.allow_roles) : [];
  const item: CandidateItem = {
    type_tag: type,
    text,
    status,
    confidence,
    topic_tags: tags,
    refs,
    supersedes,
    conflict: candidate.conflict === true,
    scope: oneOf(SCOPES, candidate.scope) ? candidate.scope : "global",
    scope_id: typeof candidate.scope_id === "string" ? candidate.scope_id : null,
    classification: oneOf(CLASSIFICATIONS, candidate.classification) ? candidate.classification : "public",
    allow_roles: allowRoles,
  };
  return { item, errors };
}

export const SUPERSESSION_TRIGGERS = ["instead", "replaced", "switched", "changed to", "no longer"] as const;

export const REPLACEMENT_VERBS = ["use", "choose", "switch", "go with", "adopt"] as const;

const REPLACEMENT_FORMS: Record<(typeof REPLACEMENT_VERBS)[number], readonly string[]> = {
  use: ["use", "uses", "using", "used"],
  choose: ["choose", "chooses", "choosing", "chose", "chosen"],
  switch: ["switch", "switches", "switching", "switched"],
  "go with": ["go with", "goes with", "going with", "went with", "gone with"],
  adopt: ["adopt", "adopts", "adopting", "adopted"],
};

/**
 * Whole-phrase matcher: letters or digits on either side mean a different word ("insteadof",
 * "reused"), and any run of whitespace may separate the words of a phrase.
 */
function phrasePattern(phrase: string): RegExp {
  const body = phrase.split(" ").join("\\s+");
  return new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, "u");
}

const TRIGGER_PATTERNS = SUPERSESSION_TRIGGERS.map((t) => [t, phrasePattern(t)] as const);
const VERB_PATTERNS = REPLACEMENT_VERBS.map(
  (verb) => [verb, REPLACEMENT_FORMS[verb].map(phrasePattern)] as const,
);

/**
 * The change-language trigger in the text, or null. "actually" and "correction" are deliberately not
 * triggers: they are common in ordinary speech and caused false supersessions.
 */
export function hasSupersessionSignal(text: string): string | null {
  const lower = text.normalize("NFC").toLowerCase();
  return TRIGGER_PATTERNS.find(([, pattern]) => pattern.test(lower))?.[0] ?? null;
}

/** The base form of the replacement verb in the text (any inflection), or null. */
export function hasReplacementVerb(text: string): string | null {
  const lower = text.normalize("NFC").toLowerCase();
  return VERB_PATTERNS.find(([, patterns]) => patterns.some((p) => p.test(lower)))?.[0] ?? null;
}
