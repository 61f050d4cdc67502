import type { FactRow } from "../facts/fact-schema";
import { valueText } from "../facts/prepare-fact";
import type { Candidate, LayerEntry, MessageRecord, StateItemRecord } from "./types";

const parseList = (json: string): string[] => JSON.parse(json) as string[];

/** A value's text without leading bracket markers such as "[RESTRICTED: …]". */
export function claimOf(valueJson: string): string {
  return valueText(JSON.parse(valueJson))
    .replace(/^(\s*\[[^\]]*\])+\s*/, "")
    .trim();
}

export function factCandidate(row: FactRow): Candidate {
  return {
    objectId: row.id,
    kind: "fact",
    key: row.key,
    text: row.content,
    tokens: row.tokens,
    ts: row.validFrom,
    scope: row.scope,
    scopeId: row.scopeId,
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

export function layerCandidate(entry: LayerEntry, kind: "working" | "environment"): Candidate {
  return {
    objectId: entry.id,
    kind,
    key: entry.key,
    text: entry.content,
    tokens: entry.tokens,
    ts: entry.ts,
    scope: entry.scope,
    scopeId: entry.scopeId,
    classification: entry.classification,
    allowRoles: parseList(entry.allowRolesJson),
    denyRoles: parseList(entry.denyRolesJson),
    isValid: entry.replacedBy === null,
    disputed: false,
    validFrom: null,
    validUntil: entry.expiresAt,
    isConstraint: false,
    claim: claimOf(entry.valueJson),
    supersededBy: entry.replacedBy,
  };
}

export function itemCandidate(record: StateItemRecord): Candidate {
  const { item } = record;
  return {
    objectId: item.uid,
    kind: "state_item",
    key: null,
    text: record.line,
    tokens: record.tokens,
    ts: item.last_seen_at,
    scope: item.scope,
    scopeId: item.scope_id,
    classification: item.classification,
    allowRoles: item.allow_roles,
    denyRoles: [],
    isValid: item.status !== "superseded",
    disputed: false,
    validFrom: null,
    validUntil: null,
    isConstraint: item.type_tag === "constraint",
    claim: item.text,
    supersededBy: item.replaced_by,
    refs: item.refs,
  };
}

export function messageCandidate(message: MessageRecord): Candidate {
  return {
    objectId: message.id,
    kind: "message",
    key: null,
    text: message.line,
    tokens: message.tokens,
    ts: message.ts,
    // A message is this session's own unless extraction found it inside another scope.
    scope: message.scope ?? "session",
    scopeId: message.scope ? (message.scope_id ?? null) : null,
    classification: "public",
    allowRoles: [],
    denyRoles: [],
    isValid: true,
    disputed: false,
    validFrom: null,
    validUntil: null,
    isConstraint: false,
    claim: null,
    supersededBy: null,
    refs: [message.id],
  };
}
