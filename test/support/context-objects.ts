import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import type { CompileInput } from "../../src/compiler/compile-input";
import type { ContextObject } from "../../src/compiler/context-object";
import type { Origin } from "../../src/compiler/passes/normalize";
import type { MessageRecord, StateItemRecord } from "../../src/compiler/types";
import type { FactVersion } from "../../src/domain/fact-version";
import { DEFAULT_AUTHORITY_LADDER } from "../../src/facts/authority";

/** A public, valid, global fact-shaped Context Object; tests override what they exercise. */
export function contextObject(extra: Partial<ContextObject> = {}): ContextObject {
  return {
    objectId: "c1",
    kind: "fact",
    objectType: "project_decision",
    key: "k",
    text: "k: v",
    tokens: 3,
    forms: null,
    ts: "2025-01-01T00:00:00.000Z",
    scope: "global",
    scopeId: null,
    tenantId: "t",
    projectId: "p",
    userId: null,
    sessionId: "t1",
    sourceOrigin: "fact://p/k/c1",
    authorityLevel: 2,
    sourceAuthority: 0.4,
    confidence: 1,
    classification: "public",
    allowRoles: [],
    denyRoles: [],
    isValid: true,
    disputed: false,
    contradiction: "clean",
    validFrom: null,
    validUntil: null,
    txStart: null,
    txEnd: null,
    isConstraint: false,
    claim: "v",
    supersededBy: null,
    entityIds: [],
    aliases: [],
    whyItMatters: null,
    taskTypes: [],
    behavioralImplication: null,
    decayHalfLifeDays: 30,
    retirementRule: "archive",
    ...extra,
  };
}

/** A current, public, global fact version written by an employee; tests override what they exercise. */
export function factRow(extra: Partial<FactVersion> = {}): FactVersion {
  const id = extra.id ?? "f1";
  const key = extra.key ?? "budget";
  return {
    projectId: "p",
    id,
    lineageId: id,
    key,
    valueJson: '"$50,000"',
    content: `${key}: $50,000`,
    tokens: 5,
    memoryType: "organizational",
    userId: null,
    threadId: "t1",
    sourceType: "user",
    sourceAuthority: null,
    sourceIdentity: null,
    authorityRank: 2,
    scope: "global",
    scopeId: null,
    supersedes: null,
    supersededBy: null,
    isValid: true,
    contradictionStatus: "clean",
    statusReason: null,
    dependsOnJson: "[]",
    needsReview: false,
    isConstraint: false,
    constraintType: null,
    classification: "public",
    allowRolesJson: "[]",
    denyRolesJson: "[]",
    validFrom: "2025-01-01T00:00:00.000Z",
    validUntil: null,
    txStart: "2025-01-01T00:00:00.000Z",
    txEnd: null,
    summary: "",
    summaryTokens: 0,
    micro: "",
    microTokens: 0,
    contextJson: "{}",
    ...extra,
  };
}

/** The thread tests normalise records for: tenant t, project p, thread t1, user u1. */
export const origin: Origin = {
  tenantId: "t",
  projectId: "p",
  threadId: "t1",
  topRank: 5,
  user: { id: "u1", name: null },
};

/** A turn of Ada's (u1) as the thread hands it to the compiler, counted. */
export function userTurn(id: string, ts: string, content: string): MessageRecord {
  const line = `[${ts}] Ada (user): ${content}`;
  return { id, ts, role: "user", speaker: "Ada", content, line, tokens: countTokens(line) };
}

/** An active decision as the extraction store holds it, counted; tests override what they exercise. */
export function stateItemRecord(
  uid: string,
  text: string,
  extra: Partial<StateItemRecord["item"]> = {},
): StateItemRecord {
  const line = `- [decision] ${text}`;
  return {
    item: {
      uid,
      text,
      status: "active",
      type_tag: "decision",
      topic_tags: ["budget"],
      refs: ["m1"],
      confidence: "high",
      replaced_by: null,
      supersession_evidence: null,
      conflict: false,
      pinned: false,
      source: "rules",
      created_at: "2025-01-02T00:00:00.000Z",
      last_seen_at: "2025-01-02T00:00:00.000Z",
      scope: "global",
      scope_id: null,
      classification: "public",
      allow_roles: [],
      ...extra,
    },
    line,
    tokens: countTokens(line),
  };
}

/** A compile's input for Ada (u1, a manager) in thread t1 with nothing stored; tests add what they exercise. */
export function compileInput(extra: Partial<CompileInput> = {}): CompileInput {
  return {
    query: "what is the budget?",
    budgetTokens: 400,
    factsShare: 0.7,
    now: "2025-06-01T00:00:00.000Z",
    threadId: "t1",
    tenantId: "t",
    projectId: "p",
    identity: { user_id: "u1", user_name: "Ada", authority: "manager" },
    environment: { region: "eu-west-1" },
    ladder: DEFAULT_AUTHORITY_LADDER,
    facts: [],
    working: [],
    environmentFacts: [],
    items: [],
    statedClaims: new Map(),
    messages: [],
    countTokens,
    ...extra,
  };
}
