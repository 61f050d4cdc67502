import { detailForms } from "../detail-forms/detail-forms";
import type { FactVersion } from "../domain/fact-version";
import type { FactEvent } from "../domain/facts";
import type { Identity } from "../domain/identity";
import { type AuthorityTier, authorityRank } from "./authority";
import { readMarkers } from "./markers";
import { inferMemoryType } from "./memory-type";
import { toInstant } from "./time";

export interface WriterContext {
  projectId: string;
  threadId: string;
  identity: Identity;
  ladder: AuthorityTier[];
  receivedAt: string;
  countTokens: (text: string) => number;
}

export function valueText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The line a fact contributes to a context; rendered once, at write time, so its token count is exact. */
export function renderFactLine(
  key: string,
  value: unknown,
  isConstraint: boolean,
  constraintType: string | null,
): string {
  const label = isConstraint ? ` [constraint${constraintType ? `: ${constraintType}` : ""}]` : "";
  return `${key}${label}: ${valueText(value)}`;
}

/**
 * Whose authority a write carries: the source's own title when given, the policy/system tier for
 * those sources, and otherwise the title of the thread's user, who is the one speaking.
 */
function writerAuthority(event: FactEvent, identity: Identity): string | undefined {
  if (event.source?.authority) return event.source.authority;
  if (event.source?.type === "policy") return "policy";
  if (event.source?.type === "system") return "system";
  return identity.authority;
}

/** Turns a validated fact event into an unlinked fact row; plan-writes decides supersession. */
export function prepareFact(event: FactEvent & { id: string; ts: string }, ctx: WriterContext): FactVersion {
  const sourceType = event.source?.type ?? "user";
  const markers = readMarkers(valueText(event.value));
  const scope = event.scope ?? markers.scope ?? "global";
  const memoryType = inferMemoryType(sourceType, event.source?.identity);
  const authority = writerAuthority(event, ctx.identity);
  const content = renderFactLine(
    event.key,
    event.value,
    event.is_constraint ?? false,
    event.constraint_type ?? null,
  );
  const defaultScopeId =
    scope === "session" ? ctx.threadId : scope === "global" ? null : (markers.scopeLabel ?? null);
  return {
    projectId: ctx.projectId,
    id: event.id,
    lineageId: event.id,
    key: event.key,
    valueJson: JSON.stringify(event.value),
    content,
    tokens: ctx.countTokens(content),
    memoryType,
    userId: memoryType === "user" ? ctx.identity.user_id : null,
    threadId: ctx.threadId,
    sourceType,
    sourceAuthority: authority ?? null,
    sourceIdentity: event.source?.identity ?? null,
    authorityRank: authorityRank(authority, ctx.ladder),
    scope,
    scopeId: event.scope_id ?? defaultScopeId,
    supersedes: event.supersedes ?? null,
    supersededBy: null,
    isValid: true,
    contradictionStatus: "clean",
    statusReason: null,
    dependsOnJson: JSON.stringify(event.depends_on ?? []),
    needsReview: false,
    isConstraint: event.is_constraint ?? false,
    constraintType: event.constraint_type ?? null,
    classification: event.classification ?? markers.classification ?? "public",
    allowRolesJson: JSON.stringify(event.allow_roles ?? markers.allowRoles ?? []),
    denyRolesJson: JSON.stringify(event.deny_roles ?? []),
    validFrom: event.valid_from ? toInstant(event.valid_from) : event.ts,
    validUntil: event.valid_until ? toInstant(event.valid_until) : null,
    txStart: ctx.receivedAt,
    txEnd: null,
    ...detailForms(valueText(event.value), ctx.countTokens, `${event.key}: `),
    contextJson: JSON.stringify(event.context ?? {}),
  };
}
