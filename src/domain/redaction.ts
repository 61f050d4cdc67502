/** Secrets are shown only to a caller cleared for "secrets:read", PII only to one cleared for "pii:read". */
export const SECRET_KINDS = ["api_key", "password", "private_key"] as const;
export const PII_KINDS = ["ssn", "ni_number", "card_number"] as const;
export const REDACTION_KINDS = [...SECRET_KINDS, ...PII_KINDS] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];
