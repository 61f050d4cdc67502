import type { AuthorityLevel } from "../../domain/authority";
import type { FactVersion } from "../../domain/fact-version";
import type { FactContext } from "../../domain/facts";
import type { ObjectTypeName } from "../../domain/objects";
import { readMarkers } from "../../facts/markers";
import { valueText } from "../../facts/prepare-fact";
import type { ContextObject } from "../context-object";
import type { LayerEntry, MessageRecord, StateItemRecord } from "../types";

/** Pass 1: every source becomes a Context Object (seed 001). Nothing is decided here. */

export interface Origin {
  tenantId: string;
  projectId: string;
  threadId: string;
  /** Highest rank on the tenant's authority ladder, to scale a writer's rank to 0–1. */
  topRank: number;
  /** The thread's user (its identity is fixed when the thread is created): whose turns are whose. */
  user: { id: string; name: string | null };
}

const parseList = (json: string): string[] => JSON.parse(json) as string[];

/** A value's text without leading bracket markers such as "[RESTRICTED: …]". */
export function claimOf(valueJson: string): string {
  return valueText(JSON.parse(valueJson))
    .replace(/^(\s*\[[^\]]*\])+\s*/, "")
    .trim();
}

const HALF_LIFE_DAYS = 30;

function base(
  origin: Origin,
): Pick<
  ContextObject,
  | "tenantId"
  | "projectId"
  | "userId"
  | "sessionId"
  | "entityIds"
  | "aliases"
  | "whyItMatters"
  | "taskTypes"
  | "behavioralImplication"
  | "decayHalfLifeDays"
  | "retirementRule"
  | "contradiction"
  | "forms"
  | "txStart"
  | "txEnd"
> {
  return {
    tenantId: origin.tenantId,
    projectId: origin.projectId,
    userId: null,
    sessionId: origin.threadId,
    entityIds: [],
    aliases: [],
    whyItMatters: null,
    taskTypes: [],
    behavioralImplication: null,
    decayHalfLifeDays: HALF_LIFE_DAYS,
    retirementRule: "archive",
    contradiction: "clean",
    forms: null,
    txStart: null,
    txEnd: null,
  };
}

/** Seed 001's authority scale, from where a fact came from. */
function factAuthorityLevel(row: FactVersion): AuthorityLevel {
  if (row.sourceType === "policy" || row.sourceType === "system") return 1;
  if (row.sourceType === "tool" || row.sourceType === "external") return 4;
  // What a user said in conversation is a user statement (level 2) once extracted; only what the
  // system derived from other facts is inferred memory.
  if (row.needsReview) return 3;
  return 2;
}

function factObjectType(row: FactVersion, level: AuthorityLevel, stated: FactContext): ObjectTypeName {
  if (stated.object_type) return stated.object_type;
  if (row.isConstraint) return level <= 1 ? "policy_rule" : "actionable_constraint";
  if (level === 1) return "policy_rule";
  if (level === 4) return "retrieved_passage";
  if (level === 3) return "inferred_belief";
  if (/prefer|style|likes?$|favou?rite/.test(row.key)) return "preference";
  if (row.memoryType === "user") return "identity_fact";
  return "project_decision";
}

export function factObject(row: FactVersion, origin: Origin): ContextObject {
  const stated = JSON.parse(row.contextJson || "{}") as FactContext;
  const authorityLevel = factAuthorityLevel(row);
  const derivedConfidence =
    row.sourceType === "conversation" || authorityLevel === 3 ? 0.8 : authorityLevel === 4 ? 0.6 : 1;
  // One literal, in the order `{ ...base(origin), … }` gave its keys (base's first, each where base put
  // it): a large project's compile meets a few hundred facts it has not normalised yet, and the spread
  // of a temporary base, arrays included, was a third of each one's garbage.
  return {
    tenantId: origin.tenantId,
    projectId: origin.projectId,
    userId: row.userId,
    sessionId: row.threadId,
    entityIds: stated.canonical_entity_ids ?? [],
    aliases: stated.aliases ?? [],
    whyItMatters: stated.why_it_matters ?? null,
    taskTypes: stated.applicable_task_types ?? [],
    behavioralImplication: stated.behavioral_implication ?? null,
    decayHalfLifeDays: stated.decay_rule?.half_life_days ?? HALF_LIFE_DAYS,
    retirementRule: stated.retirement_rule ?? "archive",
    contradiction: row.contradictionStatus,
    forms: row.summary
      ? {
          summary: row.summary,
          summaryTokens: row.summaryTokens,
          micro: row.micro,
          microTokens: row.microTokens,
        }
      : null,
    txStart: row.txStart,
    txEnd: row.txEnd,
    objectId: row.id,
    kind: "fact",
    objectType: factObjectType(row, authorityLevel, stated),
    key: row.key,
    text: row.content,
    tokens: row.tokens,
    ts: row.validFrom,
    scope: row.scope,
    scopeId: row.scopeId,
    sourceOrigin: `fact://${row.projectId}/${encodeURIComponent(row.key)}/${row.id}`,
    sourceType: row.sourceType,
    authorityLevel,
    sourceAuthority: stated.source_authority ?? Math.min(1, row.authorityRank / origin.topRank),
    confidence: stated.confidence_score ?? derivedConfidence,
    classification: row.classification,
    allowRoles: parseList(row.allowRolesJson),
    denyRoles: parseList(row.denyRolesJson),
    isValid: row.isValid && row.txEnd === null,
    disputed: row.contradictionStatus === "disputed" || row.contradictionStatus === "quarantined",
    validFrom: row.validFrom,
    validUntil: row.validUntil,
    isConstraint: row.isConstraint,
    claim: claimOf(row.valueJson),
    supersededBy: row.supersededBy,
  };
}

export function layerObject(
  entry: LayerEntry,
  kind: "working" | "environment",
  origin: Origin,
): ContextObject {
  return {
    ...base(origin),
    objectId: entry.id,
    kind,
    objectType: kind === "environment" ? "environment_signal" : "project_decision",
    key: entry.key,
    text: entry.content,
    tokens: entry.tokens,
    ts: entry.ts,
    scope: entry.scope,
    scopeId: entry.scopeId,
    sourceOrigin: `${kind}://${origin.threadId}/${encodeURIComponent(entry.key)}`,
    authorityLevel: 2,
    sourceAuthority: 1,
    confidence: 1,
    classification: entry.classification,
    allowRoles: parseList(entry.allowRolesJson),
    denyRoles: parseList(entry.denyRolesJson),
    isValid: entry.replacedBy === null,
    disputed: false,
    contradiction: entry.replacedBy === null ? "clean" : "overridden",
    validFrom: entry.ts,
    validUntil: entry.expiresAt,
    isConstraint: false,
    claim: claimOf(entry.valueJson),
    supersededBy: entry.replacedBy,
    // Environment signals describe the present; they fade within days, not months.
    decayHalfLifeDays: kind === "environment" ? 1 : HALF_LIFE_DAYS,
    retirementRule: kind === "environment" ? "hard_delete" : "archive",
  };
}

/**
 * The environment a thread was created with. A later environment write for the same key replaces the
 * initial value; the replaced value stays an object so hygiene recognises it restated in messages.
 */
export function initialEnvironmentEntries(input: {
  environment: Record<string, unknown>;
  environmentFacts: LayerEntry[];
  countTokens: (text: string) => number;
}): LayerEntry[] {
  const createdAt = typeof input.environment.now === "string" ? input.environment.now : "";
  return Object.entries(input.environment)
    .filter(([key, value]) => key !== "now" && value !== undefined && value !== null)
    .map(([key, value]): LayerEntry => {
      const replacement = input.environmentFacts.find((e) => e.key === key && e.replacedBy === null);
      const text = typeof value === "string" ? value : JSON.stringify(value);
      return {
        id: `environment:${key}`,
        key,
        valueJson: JSON.stringify(value),
        content: `${key}: ${text}`,
        tokens: input.countTokens(`${key}: ${text}`),
        ts: createdAt,
        expiresAt: null,
        scope: "global",
        scopeId: null,
        classification: "public",
        allowRolesJson: "[]",
        denyRolesJson: "[]",
        replacedBy: replacement?.id ?? null,
      };
    });
}

export function itemObject(record: StateItemRecord, origin: Origin): ContextObject {
  const { item } = record;
  const constraint = item.type_tag === "constraint";
  return {
    ...base(origin),
    objectId: item.uid,
    kind: "state_item",
    objectType: constraint ? "actionable_constraint" : "inferred_belief",
    key: null,
    text: record.line,
    tokens: record.tokens,
    ts: item.last_seen_at,
    scope: item.scope,
    scopeId: item.scope_id,
    sourceOrigin: `item://${origin.threadId}/${item.uid}`,
    authorityLevel: 3,
    sourceAuthority: item.source === "llm" ? 0.6 : 0.7,
    confidence: item.confidence === "high" ? 0.9 : item.confidence === "low" ? 0.5 : 0.7,
    classification: item.classification,
    allowRoles: item.allow_roles,
    denyRoles: [],
    isValid: item.status !== "superseded",
    disputed: false,
    contradiction: item.conflict ? "disputed" : item.status === "superseded" ? "overridden" : "clean",
    validFrom: null,
    validUntil: null,
    txStart: item.created_at,
    isConstraint: constraint,
    claim: item.text,
    supersededBy: item.replaced_by,
    refs: item.refs,
  };
}

const MESSAGE_LEVEL: Record<string, AuthorityLevel> = { system: 1, user: 2, assistant: 3, tool: 4 };

export function messageObject(message: MessageRecord, origin: Origin): ContextObject {
  const level = MESSAGE_LEVEL[message.role] ?? 3;
  // A turn that carries its own restriction marker is restricted as a whole, like the facts read from it.
  const markers = readMarkers(message.content);
  const screen = message.screen;
  if (screen) {
    // A screened turn is contained as its notice: the model learns what was attempted, and the turn's
    // own words, which name what must not be disclosed, never reach the envelope in any form.
    return {
      ...unscreened(message, origin, level, markers),
      text: screen.line,
      tokens: screen.tokens,
      forms: null,
      contradiction: "quarantined",
    };
  }
  return unscreened(message, origin, level, markers);
}

function unscreened(
  message: MessageRecord,
  origin: Origin,
  level: AuthorityLevel,
  markers: ReturnType<typeof readMarkers>,
): ContextObject {
  return {
    ...base(origin),
    objectId: message.id,
    kind: "message",
    objectType: level === 4 ? "retrieved_passage" : level === 1 ? "policy_rule" : "conversation_turn",
    key: null,
    text: message.line,
    tokens: message.tokens,
    forms: message.forms ?? null,
    ts: message.ts,
    // A turn the thread's user spoke is theirs, as a user-memory fact is (see gate.ts, ownWords).
    userId: spokenByThreadUser(message, origin) ? origin.user.id : null,
    // A message is this session's own unless extraction found it inside another scope.
    scope: message.scope ?? "session",
    scopeId: message.scope ? (message.scope_id ?? null) : null,
    sourceOrigin: `message://${origin.threadId}/${message.id}`,
    authorityLevel: level,
    sourceAuthority: level === 4 ? 0.3 : 0.7,
    confidence: 1,
    classification: markers.classification ?? "public",
    allowRoles: markers.allowRoles ?? [],
    denyRoles: [],
    isValid: true,
    disputed: false,
    validFrom: message.ts,
    validUntil: null,
    txStart: message.ts,
    isConstraint: false,
    claim: null,
    supersededBy: null,
    refs: [message.id],
    ...transcriptOf(message),
  };
}

/**
 * A user turn is the thread user's own unless it names another speaker: in a conversation of several
 * people (a group chat replayed into one thread) only the turns under the user's name are theirs.
 */
function spokenByThreadUser(message: MessageRecord, origin: Origin): boolean {
  if (message.role !== "user") return false;
  const speaker = message.speaker?.trim().toLowerCase();
  return !speaker || speaker === origin.user.id.toLowerCase() || speaker === origin.user.name?.toLowerCase();
}

/**
 * The stamp every stored form of a message opens with, as ingestion renders it, and the speaker label
 * a date-grouped transcript line keeps. Absent when the stored line does not open with that stamp.
 */
function transcriptOf(message: MessageRecord): Pick<ContextObject, "transcript"> {
  const who = message.speaker ? `${message.speaker} (${message.role})` : message.role;
  const stamp = `[${message.ts}] ${who}: `;
  if (!message.line.startsWith(stamp)) return {};
  const speaker = message.speaker && message.role !== "user" ? who : (message.speaker ?? message.role);
  return { transcript: { stamp, speaker } };
}
