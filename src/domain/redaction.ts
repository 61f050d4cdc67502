/** Secrets are shown only to a caller cleared for "secrets:read", PII only to one cleared for "pii:read". */
export const SECRET_KINDS = ["api_key", "password", "private_key"] as const;
export const PII_KINDS = ["ssn", "ni_number", "card_number"] as const;
export const REDACTION_KINDS = [...SECRET_KINDS, ...PII_KINDS] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

/**
 * A value that is a redaction placeholder, ours ("[REDACTED:password]") or a client's ("[REDACTED]",
 * "<redacted>"): it stands for a value someone chose to hide, so it is never state of its own.
 */
export const REDACTION_PLACEHOLDER = /\[\s?redacted\b[^\]\n]{0,40}\]|<redacted>|\bREDACTED\b/i;

export const holdsRedactionPlaceholder = (value: string) => REDACTION_PLACEHOLDER.test(value);
