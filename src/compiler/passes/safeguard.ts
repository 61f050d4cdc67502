/**
 * Pass 8 as applied to packed lines: redact what the caller is not cleared for, defuse anything in a
 * stored text that could pass for envelope structure or a chat-template turn, mark imperatives in user
 * and tool content as quoted, then wrap level-4 payloads in data blocks. Runs after packing, so the
 * line's token count is re-measured; the emit pass recounts the joined text and trims if the added
 * delimiters pushed it over budget.
 */

import type { BoundedMap } from "../cache/memo-tables";
import type { ContextObject } from "../context-object";
import { carriesImperative, containPayload, markQuoted, neutralizeStructure } from "./contain";
import type { Placed } from "./pack";
import { addCounts, type Clearance, type RedactionCounts, redact } from "./redact";

/** Seed 001's level 4: tool output and external content, readable but never to be obeyed. */
export const isPayload = (object: ContextObject) => object.authorityLevel === 4;

function sourceOf(object: ContextObject): string {
  if (object.kind === "message") return "tool";
  return object.sourceType ?? "external";
}

/** A guarded line: redacted, structure defused, and whether its words carry an imperative. */
export type Redacted = ReturnType<typeof redact> & { imperative: boolean };

/** The memo tables this file reads (CompilerMemos holds them). */
export interface SafeguardMemos {
  /**
   * Guarded lines (redacted, then structure defused) by clearance and line, one table per clearance:
   * neither, PII, secrets, both. A warm thread compiles mostly the lines it compiled last time, and
   * guarding runs a dozen patterns over each; it is a pure function of the two, so its result is
   * remembered. Callers must not mutate a result.
   */
  redacted: readonly BoundedMap<string, Redacted>[];
}

/** A stored line as the envelope may carry it: redacted for the clearance, its structure defused. */
function guarded(line: string, clearance: Clearance, memos: SafeguardMemos): Redacted {
  const memo = memos.redacted[(clearance.secrets ? 2 : 0) + (clearance.pii ? 1 : 0)] as BoundedMap<
    string,
    Redacted
  >;
  let result = memo.get(line);
  if (!result) {
    const clean = redact(line, clearance);
    const text = neutralizeStructure(clean.text);
    result = memo.remember(line, {
      text,
      redactions: clean.redactions,
      imperative: carriesImperative(text),
    });
  }
  return result;
}

/**
 * Developer and platform text (levels 0-1: policy and system facts, system turns) gives orders by
 * right; everything from level 2 down (users, inferred memory, tools) only reports what was said.
 */
const speaksForUsers = (object: ContextObject) => object.authorityLevel >= 2;

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
  const clean = (line: string, quote: boolean) => {
    const result = guarded(line, clearance, memos);
    addCounts(redactions, result.redactions);
    return quote && result.imperative ? markQuoted(result.text) : result.text;
  };
  // Identity and environment come from the caller's users: their imperatives are quoted too.
  const cleanFixed = (line: string) => clean(line, true);
  let contained = 0;
  const lines = placed.map((p): Placed => {
    let line = clean(p.line, speaksForUsers(p.object));
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
  const guardedFixed = Object.fromEntries(
    Object.entries(fixed).map(([name, list]) => [name, list.map(cleanFixed)]),
  );
  return { placed: lines, fixed: guardedFixed, redactions, contained };
}
