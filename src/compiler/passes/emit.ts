import type { ClassificationName } from "../../domain/classification";
import type { CompiledContext } from "../../domain/compiled-context";
import type { OmittedEntry } from "../../domain/trace";
import type { Omission, Quarantine } from "../context-object";
import { withGroupHeaders } from "../transcript";
import { type EmitFormatMemos, emitFormat, type OutputFormat } from "./emit-format";
import { orderSections, SECTIONS, type SectionName } from "./order";
import type { Placed } from "./pack";
import { isStaticZone, type ZoneBlock } from "./zones";

/**
 * Pass 10: emit the envelope and its trace. Per-line counts are stored at write time and their sum is
 * an estimate of the joined text; the final text is counted once more and, should it still exceed the
 * budget, the least important lines go first.
 */

const TRIM_ORDER: Placed["tier"][] = ["minimal", "useful", "important", "critical"];
const SECTION_TRIM: SectionName[] = [
  "messages",
  "episodes",
  "retrieved",
  "working",
  "state",
  "facts",
  "environment",
  "rules",
];

export interface EmitInput {
  budgetTokens: number;
  fixed: Partial<Record<SectionName, string[]>>;
  placed: Placed[];
  omitted: Omission[];
  quarantined: Quarantine[];
  candidateCount: number;
  admittedCount: number;
  count: (text: string) => number;
  /** `count(lines.join("\n"))` without the join, when the counter can (src/tokens/segments.ts). */
  countLines?: (lines: readonly string[]) => number;
  format?: OutputFormat;
  memos: EmitFormatMemos;
}

export type Envelope = Omit<CompiledContext, "trace_id">;

/** Placed lines of a section; in a static zone by object id, so ranking cannot reorder the cached prefix. */
function sectionLines(name: SectionName, placed: Placed[]): string[] {
  const here = placed.filter((p) => p.section === name);
  if (isStaticZone(SECTIONS[name].zone)) {
    here.sort((a, b) =>
      a.object.objectId < b.object.objectId ? -1 : a.object.objectId > b.object.objectId ? 1 : 0,
    );
  }
  return withGroupHeaders(here);
}

export function renderSections(fixed: EmitInput["fixed"], placed: Placed[]) {
  const names = new Set<SectionName>([
    ...(Object.keys(fixed) as SectionName[]),
    ...placed.map((p) => p.section),
  ]);
  const sections = orderSections(
    [...names].map((name) => ({ name, lines: [...(fixed[name] ?? []), ...sectionLines(name, placed)] })),
  ).filter((s) => s.lines.length > 0);
  const blocks: ZoneBlock[] = sections.map((s, order) => ({
    zone: SECTIONS[s.name].zone,
    id: s.name,
    order,
    text: [SECTIONS[s.name].title, ...s.lines].join("\n"),
  }));
  const text = blocks.map((b) => b.text).join("\n\n");
  // The text's lines, blocks apart by an empty one: joined by line breaks, they are the text.
  const lines = sections.flatMap((s, i) => [...(i ? [""] : []), SECTIONS[s.name].title, ...s.lines]);
  return { sections, blocks, text, lines };
}

export function emit(input: EmitInput): Envelope {
  const placed = [...input.placed];
  const omitted = [...input.omitted];
  const fixed = Object.fromEntries(
    Object.entries(input.fixed).map(([k, v]) => [k, [...(v ?? [])]]),
  ) as Record<SectionName, string[]>;
  // Counted by its lines where the counter can: each is a string the compile holds, where the pieces of
  // the text would be new slices to copy and hash, every compile, for every line.
  const countText = (built: ReturnType<typeof renderSections>) =>
    input.countLines ? input.countLines(built.lines) : input.count(built.text);
  let built = renderSections(fixed, placed);
  let tokens = countText(built);
  while (tokens > input.budgetTokens) {
    const victim = pickVictim(placed);
    if (victim !== undefined) {
      const [dropped] = placed.splice(victim, 1);
      if (dropped) omitted.push({ object: dropped.object, reason: "over_budget", tier: dropped.tier });
    } else {
      const section = (Object.keys(fixed) as SectionName[]).findLast(
        (name) => (fixed[name]?.length ?? 0) > 0,
      );
      if (!section) break;
      fixed[section]?.pop();
    }
    built = renderSections(fixed, placed);
    tokens = countText(built);
  }

  const formatted = emitFormat(built.blocks, input.format ?? "text", input.memos, input.count, tokens);
  // Section sizes from the counts stored with each line: the whole text was counted exactly above,
  // and counting every section again would double the compile's tokenizer time.
  const lineTokens = new Map<string, number>();
  for (const p of placed) lineTokens.set(p.line, p.tokens);
  const sectionTokens = (name: SectionName, lines: string[]) =>
    input.count(SECTIONS[name].title) +
    lines.reduce((sum, line) => sum + (lineTokens.get(line) ?? input.count(line)) + 1, 0);

  return {
    context: formatted.context,
    ...(formatted.messages ? { messages: formatted.messages } : {}),
    ...(formatted.anthropic ? { anthropic: formatted.anthropic } : {}),
    cache: formatted.cache,
    tokens,
    budget_tokens: input.budgetTokens,
    sections: built.sections.map((s) => ({
      name: s.name,
      tokens: sectionTokens(s.name, s.lines),
      items: s.lines.length,
    })),
    trace: {
      compiled: placed.map((p) => ({
        object_id: p.object.objectId,
        kind: p.object.kind,
        section: p.section,
        object_type: p.object.objectType,
        authority_level: p.object.authorityLevel,
        source_authority: round(p.object.sourceAuthority),
        confidence_score: round(p.object.confidence),
        security_classification: p.object.classification as ClassificationName,
        contradiction_status: p.object.contradiction,
        priority_tier: p.tier,
        compiled_as: p.compiledAs,
        detail: p.detail,
        tokens: p.tokens,
        ...(p.object.refs ? { refs: p.object.refs } : {}),
        ...(p.pendingEntities ? { pending_entities: p.pendingEntities } : {}),
      })),
      omitted: omitted.map(omissionEntry),
      quarantined: input.quarantined.map((q) => ({
        object_id: q.object.objectId,
        kind: q.object.kind,
        reason: "conflicting_claim_unresolved" as const,
        contradiction_status: "quarantined" as const,
        slot: q.slot,
        conflicts_with: q.conflictsWith,
        detail: q.detail,
      })),
      candidates: { total: input.candidateCount, admitted: input.admittedCount, compiled: placed.length },
    },
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** One per omitted candidate, thousands on a large thread: built field by field, without spreads. */
function omissionEntry(o: Omission): OmittedEntry {
  const entry: OmittedEntry = { object_id: o.object.objectId, kind: o.object.kind, reason: o.reason };
  if (o.tier) entry.priority_tier = o.tier;
  if (o.detail) entry.detail = o.detail;
  return entry;
}

/** The least important placed line: lowest tier first, then by section from the dynamic end. */
function pickVictim(placed: Placed[]): number | undefined {
  for (const tier of TRIM_ORDER) {
    for (const section of SECTION_TRIM) {
      const index = placed.findLastIndex((p) => p.tier === tier && p.section === section);
      if (index !== -1) return index;
    }
  }
  return undefined;
}
