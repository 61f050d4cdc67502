import type { OmitReasonName } from "../../domain/omissions";
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
export type Verdict = { reason: OmitReasonName; detail?: string } | undefined;

export function gate(c: ContextObject, ctx: GateContext): Verdict {
  return standingGate(c, ctx) ?? clockGate(c, ctx.now);
}

/** The gates that do not depend on the clock: for one caller they hold compile after compile. */
export function standingGate(c: ContextObject, ctx: Omit<GateContext, "now">): Verdict {
  if (!c.isValid) return { reason: "superseded" };
  if (c.disputed) return { reason: "disputed", detail: "a higher-authority fact holds this slot" };
  const scope = scopeGate(c, ctx);
  if (scope) return { reason: "out_of_scope", detail: scope };
  if (ownWords(c, ctx.caller)) return undefined;
  const permission = isPermitted(c, ctx.caller, ctx.ladder);
  if (!permission.ok) return { reason: "not_permitted", detail: permission.detail };
  return undefined;
}

/**
 * A turn the caller spoke. Permission and classification protect other users' and other roles' words;
 * a user's own turn is never hidden from them (secrets in it are still redacted for a caller without
 * clearance, pass 8), nor hidden or masked for restating a claim they may not see (claims-against.ts).
 */
export function ownWords(c: ContextObject, caller: { userId: string }): boolean {
  return c.kind === "message" && c.userId !== null && c.userId === caller.userId;
}

/** Valid time against the present. */
export function clockGate(c: ContextObject, now: string): Verdict {
  if (c.validFrom && c.validFrom > now)
    return { reason: "expired", detail: `not valid until ${c.validFrom}` };
  if (c.validUntil && c.validUntil <= now)
    return { reason: "expired", detail: `valid until ${c.validUntil}` };
  return undefined;
}

/** Of a list, the latest time one of its objects becomes valid and the earliest one stops being. */
export interface ClockBounds {
  latestStart: string;
  earliestEnd: string;
}

/** The memo tables this file reads (CompilerMemos holds them). */
export interface GateMemos {
  /** Kept per list (lists are never mutated): a warm thread gates the same lists by the clock on every compile. */
  clockBounds: WeakMap<readonly ContextObject[], ClockBounds>;
}

/**
 * Whether clockGate holds back none of the objects at `now`: the same answer as asking each one.
 * `start`, a kept list the objects begin with, has its bounds kept: only the objects after it are read.
 */
export function clockHoldsNone(
  objects: readonly ContextObject[],
  now: string,
  memos: GateMemos,
  start?: readonly ContextObject[],
): boolean {
  let bounds = memos.clockBounds.get(objects);
  if (!bounds) {
    bounds = start
      ? boundsFrom(objects, start.length, keptBounds(start, memos))
      : boundsFrom(objects, 0, NO_BOUNDS);
    memos.clockBounds.set(objects, bounds);
  }
  return (
    !(bounds.latestStart && bounds.latestStart > now) && !(bounds.earliestEnd && bounds.earliestEnd <= now)
  );
}

const NO_BOUNDS: ClockBounds = { latestStart: "", earliestEnd: "" };

/** A list's bounds, kept per list. */
function keptBounds(list: readonly ContextObject[], memos: GateMemos): ClockBounds {
  let bounds = memos.clockBounds.get(list);
  if (!bounds) {
    bounds = boundsFrom(list, 0, NO_BOUNDS);
    memos.clockBounds.set(list, bounds);
  }
  return bounds;
}

/** The bounds of a list's objects from `from` on, continuing those of the objects before it. */
function boundsFrom(list: readonly ContextObject[], from: number, before: ClockBounds): ClockBounds {
  let { latestStart, earliestEnd } = before;
  for (let i = from; i < list.length; i++) {
    const o = list[i] as ContextObject;
    if (o.validFrom && o.validFrom > latestStart) latestStart = o.validFrom;
    if (o.validUntil && (earliestEnd === "" || o.validUntil < earliestEnd)) earliestEnd = o.validUntil;
  }
  return { latestStart, earliestEnd };
}

function scopeGate(c: ContextObject, ctx: Omit<GateContext, "now">): string | undefined {
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
