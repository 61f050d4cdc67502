/**
 * Timestamps are stored as ISO-8601 UTC strings so that string order is time order. Inputs without
 * an offset (StateBench writes "2025-11-27T16:00:00") are read as UTC.
 */
export function toInstant(value: string): string {
  const hasZone = /(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(value);
  return new Date(hasZone ? value : `${value}Z`).toISOString();
}
