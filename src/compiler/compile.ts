import type { ContextOutput } from "../api/schemas";
import { fillEpisodes, relevantEpisodes, TAIL_SHARE_WITH_EPISODES } from "./episodes";
import { type GateContext, gate } from "./gate";
import {
  type DeadClaim,
  deadClaims,
  maskClaims,
  outdatedMessages,
  restatedClaim,
  speaksFromDeadState,
  worthKeeping,
} from "./hygiene";
import { bm25Scores } from "./lexical";
import { factCandidate, itemCandidate, layerCandidate, messageCandidate } from "./normalize";
import { callerFrom } from "./permissions";
import {
  environmentLines,
  identityLines,
  renderContext,
  SECTION_TITLES,
  type SectionName,
} from "./render-sections";
import type { Candidate, CompileInput, LayerEntry, MessageRecord, Omission } from "./types";

/** At most this many recent messages are considered for the tail. */
export const MESSAGE_TAIL = 12;

interface Placed {
  candidate: Candidate;
  section: SectionName;
  line: string;
}

/**
 * build_query_context (seed 000), as pure passes: normalize → gate → rank → pack → render → verify.
 * Everything that touches storage has already happened; this only decides and formats.
 */
export function compileContext(input: CompileInput): Omit<ContextOutput, "trace_id"> {
  const caller = callerFrom(input.identity, input.ladder, input.requestRoles);
  const gateContext: GateContext = {
    now: input.now,
    threadId: input.threadId,
    taskId: input.taskId,
    caller,
    ladder: input.ladder,
  };
  const omitted: Omission[] = [];

  const admit = (candidates: Candidate[]) =>
    candidates.filter((candidate) => {
      const verdict = gate(candidate, gateContext);
      if (verdict) omitted.push({ candidate, ...verdict });
      return !verdict;
    });

  const facts = admit(input.facts.map(factCandidate));
  const working = admit(input.working.map((w) => layerCandidate(w, "working")));
  const extractedItems = admit(input.items.map(itemCandidate));
  const environmentFacts = admit(input.environmentFacts.map((e) => layerCandidate(e, "environment")));
  const overriddenEnvironment = replacedInitialEnvironment(input);
  omitted.push(...overriddenEnvironment.omissions);
  const validFrom = new Map([
    ...input.facts.map((f): [string, string] => [f.id, f.validFrom]),
    ...[...input.working, ...input.environmentFacts].map((e): [string, string] => [e.id, e.ts]),
  ]);
  // An item extracted from what was said while a claim was still believed dies with that claim.
  const deadBeforeItems = deadClaims(omitted, [...facts, ...working, ...environmentFacts], validFrom);
  const outdated = outdatedMessages(input.statedClaims, facts);
  // An acknowledgement extraction tied to an outdated message (same item) is outdated with it.
  for (const item of extractedItems) {
    const from = item.refs?.find((ref) => outdated.has(ref));
    const replacedBy = from ? outdated.get(from) : undefined;
    if (replacedBy) for (const ref of item.refs ?? []) if (!outdated.has(ref)) outdated.set(ref, replacedBy);
  }
  const items = extractedItems.filter((item) => {
    const restated = speaksFromDeadState(item, deadBeforeItems);
    const from = item.refs?.find((ref) => outdated.has(ref));
    if (restated) {
      omitted.push({ candidate: item, reason: restated.reason, detail: `restates ${restated.objectId}` });
    } else if (from) {
      omitted.push({
        candidate: item,
        reason: "superseded",
        detail: `stated in ${from}, since replaced by ${outdated.get(from)}`,
      });
    }
    return !restated && !from;
  });
  const dead = deadClaims(omitted, [...facts, ...items, ...working, ...environmentFacts], validFrom);
  // Tail messages and retrieved episodes are transcript alike: one gate, one hygiene.
  const hygienic = (records: MessageRecord[]) =>
    admit(records.map(messageCandidate)).filter((message) => {
      const replacedBy = outdated.get(message.objectId);
      if (replacedBy) {
        omitted.push({
          candidate: message,
          reason: "superseded",
          detail: `stated a value since replaced by ${replacedBy}`,
        });
        return false;
      }
      const restated = speaksFromDeadState(message, dead) ?? restatedClaim(message.text, dead);
      if (restated && (speaksFromDeadState(message, dead) || !worthKeeping(maskClaims(message.text, dead)))) {
        omitted.push({
          candidate: message,
          reason: restated.reason,
          detail: `restates ${restated.objectId}`,
        });
        return false;
      }
      return true;
    });
  const tailInput = input.messages.slice(-MESSAGE_TAIL);
  const messages = hygienic(tailInput);
  const episodes = relevantEpisodes(input.episodes ?? [], tailInput, hygienic);

  const rankedFacts = rank(input.query, facts);
  const rankedWorking = rank(input.query, working);
  const rankedItems = rank(input.query, items);

  const count = input.countTokens;
  const sectionCost = (name: SectionName) => count(`${SECTION_TITLES[name]}\n`) + 2;
  const lineCost = (tokens: number) => tokens + 3;

  const baseEnvironment = overriddenEnvironment.remaining;
  const fixed = {
    identity: identityLines(input.identity),
    environment: environmentLines(baseEnvironment, input.now),
  };
  let remaining = input.budgetTokens;
  remaining -= sectionCost("identity") + fixed.identity.reduce((sum, line) => sum + count(line) + 1, 0);
  remaining -= sectionCost("environment") + fixed.environment.reduce((sum, line) => sum + count(line) + 1, 0);

  const placed: Placed[] = [];
  const fill = (
    section: SectionName,
    candidates: Candidate[],
    allowance: number,
    headerPaid = false,
  ): number => {
    let spent = 0;
    let opened = headerPaid;
    for (const candidate of candidates) {
      const cost = lineCost(candidate.tokens) + (opened ? 0 : sectionCost(section));
      if (spent + cost > allowance) {
        omitted.push({ candidate, reason: "over_budget" });
        continue;
      }
      spent += cost;
      opened = true;
      placed.push({
        candidate,
        section,
        line: `- ${maskClaims(candidate.text, dead)}`,
      });
    }
    return spent;
  };

  remaining -= fill("environment", environmentFacts, Math.max(0, remaining), true);
  // With relevant earlier conversation to place, facts and items with no bearing on the query wait
  // for what is left after it (seed 004: a layer with nothing relevant gives its budget away).
  const deferIrrelevant = episodes.beyondTail.length > 0;
  remaining -= fill(
    "facts",
    deferIrrelevant ? rankedFacts.relevant : rankedFacts.relevant.concat(rankedFacts.rest),
    Math.max(0, Math.floor(remaining * input.factsShare)),
  );
  for (const candidate of rankedWorking.rest)
    omitted.push({ candidate, reason: "irrelevant", detail: "no overlap with the query" });
  // An item restating a retrieved message adds nothing the message does not say; it waits with the rest.
  const retrieved = new Set(episodes.beyondTail.map((c) => c.objectId));
  const restatesRetrieved = (item: Candidate) =>
    !item.isConstraint &&
    (item.refs ?? []).length > 0 &&
    (item.refs ?? []).every((ref) => retrieved.has(ref));
  const deferredItems = rankedItems.relevant.filter(restatesRetrieved).concat(rankedItems.rest);
  remaining -= fill(
    "state",
    deferIrrelevant
      ? rankedItems.relevant.filter((item) => !restatesRetrieved(item))
      : rankedItems.relevant.concat(rankedItems.rest),
    Math.max(0, remaining),
  );
  remaining -= fill("working", rankedWorking.relevant, Math.max(0, remaining));
  const tailAllowance = deferIrrelevant
    ? Math.floor(Math.max(0, remaining) * TAIL_SHARE_WITH_EPISODES)
    : Math.max(0, remaining);
  remaining -= fillTail(messages, tailAllowance, sectionCost("messages"), lineCost, placed, omitted, dead);
  remaining -= fillEpisodes(
    episodes,
    messages,
    Math.max(0, remaining),
    sectionCost("episodes"),
    lineCost,
    placed,
    omitted,
    dead,
  );
  if (deferIrrelevant) {
    const opened = (section: SectionName) => placed.some((p) => p.section === section);
    remaining -= fill(
      "facts",
      rankedFacts.rest,
      Math.max(0, Math.floor(remaining * input.factsShare)),
      opened("facts"),
    );
    fill("state", deferredItems, Math.max(0, remaining), opened("state"));
  }

  return verifyAndEmit(input, fixed, placed, omitted);
}

/**
 * A later environment-layer write for a key replaces the value the thread was created with; the
 * replaced value is reported as superseded, so hygiene recognises it restated in messages.
 */
function replacedInitialEnvironment(input: CompileInput): {
  remaining: Record<string, unknown>;
  omissions: Omission[];
} {
  const remaining: Record<string, unknown> = {};
  const omissions: Omission[] = [];
  for (const [key, value] of Object.entries(input.environment)) {
    const replacement = input.environmentFacts.find((e) => e.key === key && e.replacedBy === null);
    if (!replacement) {
      remaining[key] = value;
      continue;
    }
    const initial: LayerEntry = {
      ...replacement,
      id: `environment:${key}`,
      valueJson: JSON.stringify(value),
      content: `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`,
      replacedBy: replacement.id,
    };
    omissions.push({ candidate: layerCandidate(initial, "environment"), reason: "superseded" });
  }
  return { remaining, omissions };
}

function rank(query: string, candidates: Candidate[]): { relevant: Candidate[]; rest: Candidate[] } {
  const scores = bm25Scores(
    query,
    candidates.map((c) => c.text),
  );
  const order = candidates
    .map((candidate, i) => ({ candidate, score: scores[i] ?? 0 }))
    .sort(
      (a, b) =>
        Number(b.candidate.isConstraint) - Number(a.candidate.isConstraint) ||
        b.score - a.score ||
        b.candidate.ts.localeCompare(a.candidate.ts) ||
        a.candidate.objectId.localeCompare(b.candidate.objectId),
    );
  return {
    relevant: order.filter((o) => o.score > 0 || o.candidate.isConstraint).map((o) => o.candidate),
    rest: order.filter((o) => o.score <= 0 && !o.candidate.isConstraint).map((o) => o.candidate),
  };
}

/** The newest messages win the tail budget; they are emitted oldest first so the transcript reads in order. */
function fillTail(
  messages: Candidate[],
  allowance: number,
  header: number,
  lineCost: (tokens: number) => number,
  placed: Placed[],
  omitted: Omission[],
  dead: DeadClaim[],
): number {
  let spent = 0;
  const kept: Placed[] = [];
  for (const candidate of [...messages].reverse()) {
    const cost = lineCost(candidate.tokens) + (kept.length ? 0 : header);
    if (spent + cost > allowance) {
      omitted.push({ candidate, reason: "over_budget" });
      continue;
    }
    spent += cost;
    kept.unshift({ candidate, section: "messages", line: maskClaims(candidate.text, dead) });
  }
  placed.push(...kept);
  return spent;
}

const TRIM_ORDER: SectionName[] = ["episodes", "messages", "working", "state", "facts", "environment"];

/**
 * Per-line counts are stored at write time and the sum is an estimate of the joined text; the final
 * text is counted once more and, should it still exceed the budget, the least important lines go.
 */
function verifyAndEmit(
  input: CompileInput,
  fixed: { identity: string[]; environment: string[] },
  placed: Placed[],
  omitted: Omission[],
): Omit<ContextOutput, "trace_id"> {
  const build = () => {
    const lines = (name: SectionName) => placed.filter((p) => p.section === name).map((p) => p.line);
    const sections: { name: SectionName; lines: string[] }[] = [
      { name: "identity", lines: fixed.identity },
      { name: "environment", lines: [...fixed.environment, ...lines("environment")] },
      { name: "facts", lines: lines("facts") },
      { name: "state", lines: lines("state") },
      { name: "working", lines: lines("working") },
      { name: "episodes", lines: lines("episodes") },
      { name: "messages", lines: lines("messages") },
    ];
    return { sections, text: renderContext(sections) };
  };

  let built = build();
  let tokens = input.countTokens(built.text);
  while (tokens > input.budgetTokens) {
    const section = TRIM_ORDER.find((name) => placed.some((p) => p.section === name));
    if (section) {
      const index = placed.findLastIndex((p) => p.section === section);
      const [dropped] = placed.splice(index, 1);
      if (dropped) omitted.push({ candidate: dropped.candidate, reason: "over_budget" });
    } else if (fixed.environment.length > 1) {
      fixed.environment.pop();
    } else if (fixed.identity.length > 0 || fixed.environment.length > 0) {
      fixed.identity.pop() ?? fixed.environment.pop();
    } else {
      break;
    }
    built = build();
    tokens = input.countTokens(built.text);
  }

  return {
    context: built.text,
    tokens,
    budget_tokens: input.budgetTokens,
    sections: built.sections
      .filter((s) => s.lines.length > 0)
      .map((s) => ({
        name: s.name,
        tokens: input.countTokens([SECTION_TITLES[s.name], ...s.lines].join("\n")),
        items: s.lines.length,
      })),
    trace: {
      compiled: placed.map((p) => ({
        object_id: p.candidate.objectId,
        kind: p.candidate.kind,
        section: p.section,
        ...(p.candidate.refs ? { refs: p.candidate.refs } : {}),
      })),
      omitted: omitted.map((o) => ({
        object_id: o.candidate.objectId,
        kind: o.candidate.kind,
        reason: o.reason,
        ...(o.detail ? { detail: o.detail } : {}),
      })),
      quarantined: [],
    },
  };
}
