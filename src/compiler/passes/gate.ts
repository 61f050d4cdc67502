import type { OmitReasonName } from "../../api/schemas";
import type { AuthorityTier } from "../../facts/authority";
import type { ContextObject } from "../context-object";
import { type Caller, isPermitted } from "../permissions";

export interface GateContext {
  now: string;
  threadId: string;
  taskId?: string;
  caller: Caller;
  ladder: AuthorityTier[];
}

/**
 * The hard filters, in the order the trace reports them: a superseded object is reported as
 * superseded even if it is also out of scope. Returns undefined when the object may be compiled.
 */
export function gate(
  c: ContextObject,
  ctx: GateContext,
): { reason: OmitReasonName; detail?: string } | undefined {
  if (!c.isValid) return { reason: "superseded" };
  if (c.disputed) return { reason: "disputed", detail: "a higher-authority fact holds this slot" };
  const scope = scopeGate(c, ctx);
  if (scope) return { reason: "out_of_scope", detail: scope };
  const permission = isPermitted(c, ctx.caller, ctx.ladder);
  if (!permission.ok) return { reason: "not_permitted", detail: permission.detail };
  if (c.validFrom && c.validFrom > ctx.now)
    return { reason: "expired", detail: `not valid until ${c.validFrom}` };
  if (c.validUntil && c.validUntil <= ctx.now)
    return { reason: "expired", detail: `valid until ${c.validUntil}` };
  return undefined;
}

function scopeGate(c: ContextObject, ctx: GateContext): string | undefined {
  switch (c.scope) {
    case "global":
      return undefined;
    case "hypothetical":
    case "draft":
      return `${c.scope} scope${c.scopeId ? ` '${c.scopeId}'` : ""} never informs real decisions`;
    case "task":
      return c.scopeId && c.scopeId === ctx.taskId
        ? undefined
        : `belongs to task '${c.scopeId ?? "unnamed"}'`;
    case "session":
      return !c.scopeId || c.scopeId === ctx.threadId ? undefined : `belongs to session '${c.scopeId}'`;
    default:
      return `unknown scope '${c.scope}'`;
  }
}
