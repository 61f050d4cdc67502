/**
 * Pass 8 as applied to packed lines: redact what the caller is not cleared for, then wrap level-4
 * payloads in data blocks. Runs after packing, so the line's token count is re-measured; the emit
 * pass recounts the joined text and trims if the added delimiters pushed it over budget.
 */

import type { BoundedMap } from "../cache/memo-tables";
import type { ContextObject } from "../context-object";
import { containPayload } from "./contain";
import type { Placed } from "./pack";
import { addCounts, type Clearance, type RedactionCounts, redact } from "./redact";

/** Seed 001's level 4: tool output and external content, readable but never to be obeyed. */
export const isPayload = (object: ContextObject) => object.authorityLevel === 4;

function sourceOf(object: ContextObject): string {
  if (object.kind === "message") return "tool";
  return object.sourceType ?? "external";
}

export type Redacted = ReturnType<typeof redact>;

/** The memo tables this file reads (CompilerMemos holds them). */
export interface SafeguardMemos {
  /**
   * Redaction results by clearance and line, one table per clearance: neither, PII, secrets, both. A
   * warm thread compiles mostly the lines it compiled last time, and redaction runs a dozen patterns
   * over each; it is a pure function of the two, so its result is remembered. Callers must not mutate
   * a result.
   */
  redacted: readonly BoundedMap<string, Redacted>[];
}

function redacted(line: string, clearance: Clearance, memos: SafeguardMemos): Redacted {
  const memo = memos.redacted[(clearance.secrets ? 2 : 0) + (clearance.pii ? 1 : 0)] as BoundedMap<
    string,
    Redacted
  >;
  let result = memo.get(line);
  if (!result) result = memo.remember(line, redact(line, clearance));
  return result;
}

export interface Safeguarded {
  placed: Placed[];
  fixed: Record<string, string[]>;
  redactions: RedactionCounts;
  contained: number;
}

export function safeguard(
  placed: readonly Placed[],
  fixed: Record<string, string[]>,
  clearance: Clearance,
  count: (text: string) => number,
  memos: SafeguardMemos,
): Safeguarded {
  const redactions: RedactionCounts = {};
  const clean = (line: string) => {
    const result = redacted(line, clearance, memos);
    addCounts(redactions, result.redactions);
    return result.text;
  };
  let contained = 0;
  const lines = placed.map((p): Placed => {
    let line = clean(p.line);
    if (isPayload(p.object)) {
      contained++;
      // The bullet stays outside: it is envelope structure, not part of what the tool said.
      const bullet = line.startsWith("- ") ? "- " : "";
      line =
        bullet +
        containPayload(line.slice(bullet.length), { source: sourceOf(p.object), id: p.object.objectId });
    }
    return line === p.line ? p : { ...p, line, tokens: count(line) + 1 };
  });
  const cleanFixed = Object.fromEntries(Object.entries(fixed).map(([name, list]) => [name, list.map(clean)]));
  return { placed: lines, fixed: cleanFixed, redactions, contained };
}
