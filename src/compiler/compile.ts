import type { PendingReference } from "../domain/trace";
import { registryThings } from "../entities/fact-entities";
import { DEFAULT_AUTHORITY_LADDER } from "../facts/authority";
import { CompileCache } from "./cache/compile-cache";
import type { CompileInput } from "./compile-input";
import type { ContextObject, Omission } from "./context-object";
import { terms } from "./lexical";
import { dedupe, sharedClaims } from "./passes/compress";
import { CONTAINMENT_RULE } from "./passes/contain";
import { type Envelope, emit } from "./passes/emit";
import { clockGate, clockHoldsNone, type GateContext, ownWords, standingGate } from "./passes/gate";
import { layerShares } from "./passes/layer-shares";
import { initialEnvironmentEntries, type Origin } from "./passes/normalize";
import { pack } from "./passes/pack";
import { type RankContext, type Ranked, rankGroup, splitByTrust, tiers } from "./passes/rank";
import { clearanceFrom } from "./passes/redact";
import { isPayload, safeguard } from "./passes/safeguard";
import { settleFacts } from "./passes/temporal/settle-facts";
import { settleItems, statedFor } from "./passes/temporal/settle-items";
import { settleTranscript } from "./passes/temporal/settle-transcript";
import { toolLines } from "./passes/zones";
import { callerFrom } from "./permissions";
import { identityLines, nowLine } from "./render-sections";

/** At most this many recent messages are considered for the tail. */
export const MESSAGE_TAIL = 12;

/**
 * build_query_context as seed 001's ten passes. Everything that touches storage has already happened;
 * each pass is a pure function of its input:
 *   1 normalize → 2 resolve entities → 3 gates → 4 temporal validity and conflicts → 5 rank and tier →
 *   6 rescue → 7 compress, convert and pack → 8 contain → 9 order → 10 emit.
 */
export function compileContext(compileInput: CompileInput): Envelope {
  // Without a thread's cache, a fresh one serves this compile alone: the same path, nothing reused.
  const cache = compileInput.cache ?? new CompileCache();
  // Every count goes through the cache, which remembers the counts of lines it has seen.
  const input = { ...compileInput, countTokens: cache.countWith(compileInput.countTokens) };
  const ladder = input.ladder.length ? input.ladder : DEFAULT_AUTHORITY_LADDER;
  const origin: Origin = {
    tenantId: input.tenantId,
    projectId: input.projectId,
    threadId: input.threadId,
    topRank: Math.max(1, ...ladder.map((t) => t.rank)),
    user: { id: input.identity.user_id, name: input.identity.user_name?.trim() || null },
  };

  cache.begin(origin);
  const { memos } = cache;

  // 1–2. normalize and resolve entities: both depend on each object alone, so a warm thread's cache
  // holds their result for every record that has not changed since the last compile.
  const tail = input.messages.slice(-MESSAGE_TAIL);
  const tailIds = new Set(tail.map((m) => m.id));
  const retrieval = new Map(
    (input.episodes ?? []).map((e) => [e.id, { score: e.score, similarity: e.similarity ?? 1 }]),
  );
  const resolved = {
    facts: cache.resolvedList("fact", input.facts, (row) => cache.fact(row, origin)),
    working: cache.resolvedList("working", input.working, (entry) => cache.layer(entry, "working", origin)),
    environment: cache.sameList(
      "environment",
      [...initialEnvironmentEntries(input), ...input.environmentFacts].map((entry) =>
        cache.layer(entry, "environment", origin),
      ),
    ),
    items: cache.resolvedList("item", input.items, (record) => cache.item(record, origin)),
    messages: tail.map((message) => cache.message(message, origin)),
    // Retrieved earlier messages; those already in the tail compete there first (see pack).
    episodes: (input.episodes ?? [])
      .filter((episode) => !tailIds.has(episode.id))
      // Without its score, which changes with every query while the message stays the same.
      .map(({ score: _, ...message }) => cache.message(message, origin)),
  };
  const candidateCount = Object.values(resolved).reduce((n, list) => n + list.length, 0);

  // 3. scope, permission and authority gates
  const gateContext: GateContext = {
    now: input.now,
    threadId: input.threadId,
    taskId: input.taskId,
    caller: callerFrom(input.identity, input.ladder, input.requestRoles),
    ladder: input.ladder,
  };
  const gated: Omission[] = [];
  // What does not depend on the clock is decided once per object for this caller (seed 001's gates
  // in the same order: gate() is standingGate, then clockGate).
  const caller = callerKey(gateContext);
  const standing = cache.standingVerdicts(caller);
  // The table holds each standing omission itself, so a warm compile reuses it rather than rebuilding
  // thousands of them (omissions are never mutated).
  const standingOf = (object: ContextObject) => {
    let held = standing.get(object);
    if (held === undefined) {
      const verdict = standingGate(object, gateContext);
      held = verdict ? { object, ...verdict } : null;
      standing.set(object, held);
    }
    return held;
  };
  // A list split before for this caller is gated by the clock alone; when the clock holds none of
  // its open objects, the result is the split itself, in the same order as gating one by one.
  const admit = (objects: ContextObject[], name: string) => {
    // One pass over the list: a new turn's changed list is split afresh, every object looked up once
    // (but for the run of held objects it begins with, split once: CompileCache.standingSplit).
    const split = (list: readonly ContextObject[]) => {
      const parts: { open: ContextObject[]; held: Omission[] } = { open: [], held: [] };
      for (const object of list) {
        const omission = standingOf(object);
        if (omission) parts.held.push(omission);
        else parts.open.push(object);
      }
      return parts;
    };
    const { open, held, start } = cache.standingSplit(caller, objects, split, name);
    if (clockHoldsNone(open, gateContext.now, memos, start)) {
      for (const omission of held) gated.push(omission);
      return open;
    }
    return objects.filter((object) => {
      const held = standingOf(object);
      if (held) {
        gated.push(held);
        return false;
      }
      const verdict = clockGate(object, gateContext.now);
      if (verdict) gated.push({ object, ...verdict });
      return !verdict;
    });
  };
  const admitted = {
    facts: admit(resolved.facts, "facts"),
    working: admit(resolved.working, "working"),
    environment: admit(resolved.environment, "environment"),
    items: admit(resolved.items, "items"),
    messages: admit(resolved.messages, "messages"),
    episodes: admit(resolved.episodes, "episodes"),
  };
  const admittedCount = Object.values(admitted).reduce((n, list) => n + list.length, 0);

  // 4. temporal validity and conflicts
  // Stored state is settled once while it stays the same (a gated message can neither kill nor date a
  // claim, so only gated state counts); the transcript, which retrieval changes per query, every time.
  const gatedState = gated.filter((o) => o.object.kind !== "message");
  const sourceClaims = statedFor(admitted.items, input.statedClaims);
  // What attributed instructions are about, as the registry's canonical ids, when it is at hand.
  const things = input.registry
    ? registryThings(input.registry.entities, input.registry.thresholds)
    : undefined;
  const state = cache.temporalState(
    admitted,
    gatedState,
    sourceClaims,
    {
      facts: (memo) => settleFacts(admitted, gatedState, memos, memo, ladder, things),
      items: (core) => settleItems(core, admitted.items, gatedState, sourceClaims, memos),
    },
    things,
  );
  const ownTurn = (message: ContextObject) => ownWords(message, gateContext.caller);
  const settled = settleTranscript(
    state,
    admitted,
    gated,
    input.statedClaims,
    memos,
    (dead) => cache.sameDead(dead),
    ownTurn,
  );
  const omitted = [...settled.omitted];

  // 5. rank and tier
  const rankContext: RankContext = {
    query: input.query,
    now: input.now,
    taskType: input.taskType,
    similar: input.similar,
    memos,
  };
  const rank = (objects: ContextObject[], tierOf: Parameters<typeof rankGroup>[2]) => {
    const { ranked, omitted: irrelevant } = rankGroup(objects, rankContext, tierOf);
    for (const o of irrelevant) omitted.push(o);
    return ranked;
  };
  // Level 4 is retrieved, untrusted text: ranked and packed apart from the facts.
  const byTrust = splitByTrust(settled.facts, memos);
  const facts = rank(byTrust.trusted, tiers.facts);
  const retrieved = rank(byTrust.untrusted, tiers.facts);
  const items = rank(settled.items, tiers.items);
  const working = rank(settled.working, tiers.working);
  const environment = rank(settled.environment, tiers.environment);
  const messages = rank(settled.messages, tiers.messages);
  // 6. rescue: retrieval already attached the session neighbours that carry an answer (src/retrieval);
  // here episodes keep their retrieval score, and an item that only restates a retrieved message
  // waits with the background, since the message itself says it.
  const episodes: Ranked[] = settled.episodes.map((object) => ({
    object,
    tier: "useful",
    relevance: retrieval.get(object.objectId)?.similarity ?? 0,
    score: retrieval.get(object.objectId)?.score ?? 0,
  }));
  const retrievedIds = new Set(episodes.map((r) => r.object.objectId));
  const restatesRetrieved = (r: Ranked) =>
    r.tier === "important" &&
    !r.object.isConstraint &&
    (r.object.refs ?? []).length > 0 &&
    (r.object.refs ?? []).every((ref) => retrievedIds.has(ref));
  for (const r of items) if (restatesRetrieved(r)) r.tier = "minimal";

  // 7. compress and convert: duplicates collapse onto the strongest copy, then layered packing.
  const all = [...facts, ...items, ...working, ...environment, ...retrieved];
  const rules = all.filter((r) => r.tier === "critical");
  const byTier = (list: typeof facts, tier: string) => list.filter((r) => r.tier === tier);
  const { groups, omitted: duplicates } = dedupe(
    [
      rules,
      environment.filter((r) => r.tier !== "critical"),
      byTier(items, "important"),
      byTier(working, "important"),
      byTier(facts, "important"),
      byTier(retrieved, "important"),
      messages,
      [...byTier(facts, "minimal"), ...byTier(items, "minimal"), ...byTier(retrieved, "minimal")],
    ],
    memos,
    sharedClaims(state, memos),
  );
  omitted.push(...duplicates);
  const [rulesG, environmentG, itemsG, workingG, factsG, retrievedG, messagesG, backgroundG] = groups;

  const hasPayloads = [...retrieved, ...messages].some((r) => isPayload(r.object));
  const fixed = {
    ...staticZoneLines(input, hasPayloads),
    identity: identityLines(input.identity),
    environment: [nowLine(input.now)],
  };
  const fixedTokens = Object.entries(fixed).reduce(
    (sum, [, lines]) => sum + lines.reduce((s, line) => s + input.countTokens(line) + 1, 0) + 6,
    0,
  );
  const queryTerms = terms(input.query);
  const shares = layerShares(
    queryTerms,
    [...(itemsG ?? []), ...(factsG ?? [])],
    episodes,
    input.factsShare,
    memos,
  );
  const { placed, omitted: overBudget } = pack({
    budgetTokens: input.budgetTokens,
    factsShare: shares.factsShare,
    stateShare: shares.stateShare,
    fixedTokens,
    rules: rulesG ?? [],
    environment: environmentG ?? [],
    items: itemsG ?? [],
    working: workingG ?? [],
    facts: factsG ?? [],
    retrieved: retrievedG ?? [],
    episodes,
    retrieval,
    messages: messagesG ?? [],
    background: backgroundG ?? [],
    threadId: input.threadId,
    queryTerms,
    dead: settled.dead,
    ownTurn,
    count: input.countTokens,
    memos,
    pending: pendingByFact(input.pendingEntities),
  });
  omitted.push(...overBudget);

  // 8. contain untrusted payloads; redact secrets and PII the caller is not cleared for.
  const guarded = safeguard(
    placed,
    { identity: fixed.identity, environment: fixed.environment },
    clearanceFrom(input.identity, input.requestRoles),
    input.countTokens,
    memos,
  );

  // 9–10. order for cache and attention, emit the envelope and its trace.
  const envelope = emit({
    budgetTokens: input.budgetTokens,
    fixed: { ...fixed, ...guarded.fixed },
    placed: guarded.placed,
    format: input.format,
    omitted,
    quarantined: settled.quarantined,
    candidateCount,
    admittedCount,
    count: input.countTokens,
    countLines: input.countTokens.lines,
    memos,
  });
  // Screened turns among the candidates, whether or not their notice was placed.
  const screened = [...tail, ...(input.episodes ?? []).filter((e) => !tailIds.has(e.id))].flatMap((m) =>
    m.screen
      ? [{ object_id: m.id, kind: "message" as const, screen: m.screen.kind, detail: m.screen.detail }]
      : [],
  );
  const redactions = Object.keys(guarded.redactions).length ? { redactions: guarded.redactions } : {};
  const budget = { evidence: shares.evidence, state_share: shares.stateShare };
  return {
    ...envelope,
    trace: { ...envelope.trace, budget, ...redactions, ...(screened.length ? { screened } : {}) },
  };
}

/** Everything standingGate reads besides the object, as one string. */
function callerKey(ctx: GateContext): string {
  return JSON.stringify([
    ctx.threadId,
    ctx.taskId ?? null,
    ctx.caller.userId,
    [...ctx.caller.roles],
    ctx.caller.rank,
    [...ctx.caller.clearances],
    ctx.ladder,
  ]);
}

/**
 * Zones 1 and 3: the caller's developer rules and tool definitions. They are the caller's own request
 * text, not stored state, so they are neither redacted nor contained. The containment rule joins them
 * when a payload may be compiled, so the model is told what the data blocks mean.
 */
function staticZoneLines(input: CompileInput, hasPayloads: boolean): { system?: string[]; tools?: string[] } {
  const system = [...(input.system ? [input.system] : []), ...(hasPayloads ? [CONTAINMENT_RULE] : [])];
  const tools = toolLines(input.tools ?? []);
  return { ...(system.length ? { system } : {}), ...(tools.length ? { tools } : {}) };
}

/** The pending entities each fact names, by fact id; undefined when none does. */
function pendingByFact(references: readonly PendingReference[] = []) {
  if (references.length === 0) return undefined;
  const byFact = new Map<string, PendingReference[]>();
  for (const reference of references) {
    const list = byFact.get(reference.factId);
    if (!list) byFact.set(reference.factId, [reference]);
    else if (!list.some((p) => p.entityId === reference.entityId)) list.push(reference);
  }
  return byFact;
}
