// A realistic agent thread for the compile benches, generated deterministically: the inputs the Durable
// Object would hand compileContext (scripts/bench-compile.ts), and the events that build one over HTTP.
import { MESSAGE_TAIL } from "../../src/compiler/compile";
import type { CompileInput } from "../../src/compiler/compile-input";
import type { LayerEntry, MessageRecord, StatedClaims, StateItemRecord } from "../../src/compiler/types";
import type { FactVersion } from "../../src/domain/fact-version";
import { DEFAULT_AUTHORITY_LADDER } from "../../src/facts/authority";
import { FACT_CANDIDATE_LIMITS, WHOLE_PROJECT_VERSIONS } from "../../src/facts/fact-candidates";
import { prepareFact, renderFactLine } from "../../src/facts/prepare-fact";
import { renderItemLine } from "../../src/items/render";
import type { StateItem, StateItemType } from "../../src/items/types";
import { loadTokenCounter } from "../../src/tokens/count-tokens";

export const BUDGET = 8000;
/**
 * What a compile can be handed at most: every fact candidate source full (src/facts/fact-candidates.ts
 * FACT_CANDIDATE_LIMITS, with a whole project's WHOLE_PROJECT_VERSIONS in place of `recent`), and
 * ExtractionStore.itemRecords' newest 500 items.
 */
const FACTS_LOADED =
  Object.values(FACT_CANDIDATE_LIMITS).reduce((sum, n) => sum + n, 0) -
  FACT_CANDIDATE_LIMITS.recent +
  WHOLE_PROJECT_VERSIONS;
const ITEMS_LOADED = 500;
/** Retrieved earlier messages handed to the compiler at most (src/thread/thread-object.ts MAX_EPISODES). */
const MAX_EPISODES = 200;

export function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export const TOPICS = [
  "billing",
  "search",
  "onboarding",
  "payments",
  "analytics",
  "mobile",
  "auth",
  "reporting",
  "exports",
  "notifications",
  "pricing",
  "storage",
];
export const OWNERS = ["Ada", "Bob", "Chen", "Dana", "Eli", "Fatima", "Gus", "Hana"];
export const STACK = ["Postgres", "Redis", "Kafka", "S3", "BigQuery", "Elastic", "SQLite", "Snowflake"];
export const QUERIES = [
  "what did we decide about the billing database?",
  "who owns the payments migration and when is it due?",
  "what is the budget for analytics this quarter?",
  "which region do we deploy search to?",
  "open risks for the mobile launch",
  "summarise the auth constraints",
];

export interface Mix {
  facts: number;
  working: number;
  environment: number;
  items: number;
  messages: number;
}

/** Roughly what a long-lived agent thread accumulates: facts and extracted items dominate. */
export function mixFor(objects: number): Mix {
  const facts = Math.round(objects * 0.4);
  const working = Math.round(objects * 0.1);
  const environment = Math.round(objects * 0.05);
  const items = Math.round(objects * 0.25);
  return { facts, working, environment, items, messages: objects - facts - working - environment - items };
}

export function messageText(i: number, pick: <T>(list: T[]) => T): string {
  const topic = pick(TOPICS);
  switch (i % 6) {
    case 0:
      return `We decided to use ${pick(STACK)} for the ${topic} service.`;
    case 1:
      return `The ${topic} budget is $${(10 + (i % 90)) * 1000}.`;
    case 2:
      return `${pick(OWNERS)} will draft the ${topic} migration plan by Friday.`;
    case 3:
      return `Can we ship ${topic} to the EU region before the end of the month?`;
    case 4:
      return `Risk: the ${topic} vendor contract may slip, which would delay the launch.`;
    default:
      return `We must not store ${topic} card data outside ${pick(STACK)}.`;
  }
}

export function factEvents(count: number, pick: <T>(list: T[]) => T, chance: () => number) {
  const events: { type: "fact"; id: string; key: string; value: string; layer?: string }[] = [];
  for (let i = 0; i < count; i++) {
    // One write in five restates an earlier key, so history and supersession are part of the load.
    const key = i > 10 && chance() < 0.2 ? (events[Math.floor(chance() * i)]?.key ?? `k${i}`) : null;
    const topic = pick(TOPICS);
    events.push({
      type: "fact",
      id: `f${i}`,
      key: key ?? `${topic}_${["owner", "region", "deadline", "budget", "vendor"][i % 5]}_${i}`,
      value: `${pick(OWNERS)} set ${topic} to ${pick(STACK)} (${i})`,
    });
  }
  return events;
}

export function layerEvents(count: number, layer: "working" | "environment", pick: <T>(list: T[]) => T) {
  return Array.from({ length: count }, (_, i) => ({
    type: "fact" as const,
    id: `${layer[0]}${i}`,
    key: `${layer}_${pick(TOPICS)}_${i % Math.max(1, Math.floor(count / 2))}`,
    value: `${pick(TOPICS)} ${pick(STACK)} step ${i}`,
    layer,
  }));
}

export async function compilerInput(objects: number): Promise<{
  input: CompileInput;
  mix: Mix;
  forQuery: (query: string) => Pick<CompileInput, "query" | "episodes" | "statedClaims">;
}> {
  const chance = random(objects);
  const pick = <T>(list: T[]) => list[Math.floor(chance() * list.length)] as T;
  const countTokens = await loadTokenCounter();
  const mix = mixFor(objects);
  const start = Date.parse("2026-01-01T00:00:00Z");
  const at = (i: number) => new Date(start + i * 60_000).toISOString();
  const identity = { user_id: "u1", user_name: "Ada", authority: "employee" };

  const writer = {
    projectId: "bench",
    threadId: "bench",
    identity,
    ladder: DEFAULT_AUTHORITY_LADDER,
    receivedAt: at(0),
    countTokens,
  };
  const latestByKey = new Map<string, FactVersion>();
  const facts: FactVersion[] = factEvents(mix.facts, pick, chance).map((event, i) => {
    const row = prepareFact({ ...event, ts: at(i) }, writer);
    const previous = latestByKey.get(row.key);
    if (previous) {
      previous.txEnd = row.txStart;
      previous.supersededBy = row.id;
      row.supersedes = previous.id;
      row.lineageId = previous.lineageId;
    }
    latestByKey.set(row.key, row);
    return row;
  });

  const layer = (layerName: "working" | "environment", count: number): LayerEntry[] => {
    const current = new Map<string, LayerEntry>();
    return layerEvents(count, layerName, pick).map((event, i) => {
      const content = renderFactLine(event.key, event.value, false, null);
      const entry: LayerEntry = {
        id: event.id,
        key: event.key,
        valueJson: JSON.stringify(event.value),
        content,
        tokens: countTokens(content),
        ts: at(i),
        expiresAt: null,
        scope: layerName === "working" ? "session" : "global",
        scopeId: null,
        classification: "public",
        allowRolesJson: "[]",
        denyRolesJson: "[]",
        replacedBy: null,
      };
      const before = current.get(event.key);
      if (before) before.replacedBy = entry.id;
      current.set(event.key, entry);
      return entry;
    });
  };

  const types: StateItemType[] = ["decision", "constraint", "action", "question", "risk"];
  const items: StateItemRecord[] = Array.from({ length: mix.items }, (_, i) => {
    const item: StateItem = {
      uid: `i${i}`,
      text: messageText(i, pick),
      status: i % 7 === 0 ? "superseded" : "active",
      type_tag: types[i % types.length] as StateItemType,
      topic_tags: [pick(TOPICS)],
      refs: [`m${i % Math.max(1, mix.messages)}`],
      confidence: i % 9 === 0 ? "low" : "high",
      replaced_by: i % 7 === 0 ? `i${i + 1}` : null,
      supersession_evidence: null,
      conflict: false,
      pinned: false,
      source: "rules",
      created_at: at(i),
      last_seen_at: at(i),
      scope: "global",
      scope_id: null,
      classification: "public",
      allow_roles: [],
    };
    const line = renderItemLine(item);
    return { item, line, tokens: countTokens(line) };
  });

  // The transcript: the object loads its tail, and retrieves earlier messages for each query.
  const transcript: MessageRecord[] = Array.from({ length: mix.messages }, (_, i) => {
    const content = messageText(i, pick);
    const line = `[${at(i)}] ${pick(OWNERS)} (user): ${content}`;
    return { id: `m${i}`, ts: at(i), role: "user", speaker: null, content, line, tokens: countTokens(line) };
  });
  const messages = transcript.slice(-MESSAGE_TAIL);
  // What extraction read from the messages (one held entry per message, as ExtractionStore keeps them):
  // budgets are slot claims, and some turns retire the figure they replace.
  const stated = new Map<string, StatedClaims>();
  for (const [i, m] of transcript.entries()) {
    const budget = /^The (\w+) budget is (\$[\d,]+)\.$/.exec(m.content);
    if (!budget) continue;
    stated.set(m.id, {
      ts: m.ts,
      claims: [{ key: `${budget[1]}_budget`, value: budget[2] as string }],
      ...(i % 4 === 1 ? { retired: [`the ${budget[1]} budget was $${(11 + (i % 90)) * 1000}`] } : {}),
    });
  }
  const claimsOf = (ids: string[]) =>
    new Map(ids.flatMap((id) => (stated.has(id) ? [[id, stated.get(id) as StatedClaims] as const] : [])));
  const loadedItems = items.reverse().slice(0, ITEMS_LOADED);
  const itemRefs = loadedItems.flatMap((record) => record.item.refs);
  const earlier = transcript.slice(0, -MESSAGE_TAIL);

  /**
   * What changes with the query, as the object hands it over: up to MAX_EPISODES earlier messages
   * retrieved for it (those naming one of its topics, newest first, then others), and the claims
   * stated by the tail, the episodes and the items' source messages.
   */
  const forQuery = (query: string): Pick<CompileInput, "query" | "episodes" | "statedClaims"> => {
    const topics = TOPICS.filter((topic) => query.includes(topic));
    const named = earlier.filter((m) => topics.some((topic) => m.content.includes(topic))).reverse();
    const others = earlier.filter((m) => !named.includes(m)).filter((_, i) => i % 7 === query.length % 7);
    const episodes = [...named, ...others]
      .slice(0, MAX_EPISODES)
      .map((m, rank) => ({ ...m, score: 1 / (rank + 1) }));
    const statedClaims = claimsOf([...messages, ...episodes].map((m) => m.id).concat(itemRefs));
    return { query, episodes, statedClaims };
  };

  return {
    mix,
    forQuery,
    input: {
      budgetTokens: BUDGET,
      factsShare: 0.7,
      now: at(objects + 1),
      threadId: "bench",
      identity,
      environment: { region: "eu-west-1", tier: "enterprise" },
      ladder: DEFAULT_AUTHORITY_LADDER,
      // At most what the candidate search hands a compile, and ExtractionStore.itemRecords' newest 500.
      facts: facts.reverse().slice(0, FACTS_LOADED),
      working: layer("working", mix.working),
      environmentFacts: layer("environment", mix.environment),
      items: loadedItems,
      messages,
      ...forQuery(QUERIES[0] as string),
      countTokens,
    },
  };
}
