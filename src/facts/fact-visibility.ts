import { type Clearance, clearanceFrom, redactValue as redactForClearance } from "../compiler/passes/redact";
import { type Caller, callerFrom, isPermitted } from "../compiler/permissions";
import type { FactVersion } from "../domain/fact-version";
import type { Identity } from "../domain/identity";
import type { AuthorityTier } from "./authority";
import { authorityRank } from "./authority";

/**
 * Who a project-wide fact read (GET /facts, fact history) answers for. Those reads carry no thread, so
 * no identity: the request names the viewer (`as_user`, `roles`), or there is none. Without one, a read
 * returns only what every member of the project may see: shared facts, public, with no role lists.
 * With one, the compiler's own permission rule (compiler/permissions.ts isPermitted) decides, for a
 * caller holding exactly the named roles and ranked by the highest of them, plus that user's own
 * private facts; secrets and PII are redacted as compile redacts them unless the roles include the
 * clearance (`secrets:read`, `pii:read`).
 */
export interface Viewer {
  /** The user whose private facts the reader may see; null for a read that names nobody. */
  userId: string | null;
  roles: string[];
}

export const NO_VIEWER: Viewer = { userId: null, roles: [] };

export interface FactGate {
  viewer: Viewer;
  caller: Caller;
  clearance: Clearance;
  ladder: AuthorityTier[];
}

const lower = (s: string) => s.trim().toLowerCase();

export function factGate(viewer: Viewer, ladder: AuthorityTier[]): FactGate {
  const roles = viewer.roles.map(lower).filter(Boolean);
  const named = roles.filter((r) => !r.includes(":"));
  const caller: Caller = {
    userId: viewer.userId ?? "",
    roles: new Set(named),
    // The viewer ranks as the highest title among its roles; naming none, as the lowest member.
    rank: named.length ? Math.max(...named.map((r) => authorityRank(r, ladder))) : 0,
    clearances: new Set(
      roles.filter((r) => r.startsWith("clearance:")).map((r) => r.slice("clearance:".length)),
    ),
  };
  const clearance = clearanceFrom({ user_id: viewer.userId ?? "", permissions: roles });
  return { viewer, caller, clearance, ladder };
}

/**
 * The gate of a thread's own reads (GET …/state): the thread's identity, exactly as compile's caller
 * (its roles and title, its clearances), so a read shows what a compile for that user could.
 */
export function identityGate(identity: Identity, ladder: AuthorityTier[]): FactGate {
  return {
    viewer: { userId: identity.user_id, roles: identity.roles ?? [] },
    caller: callerFrom(identity, ladder),
    clearance: clearanceFrom(identity),
    ladder,
  };
}

/** Whether the gate's caller may see an object with these permissions (a state item, a layer entry). */
export function mayViewObject(
  object: { classification: string; allowRoles: string[]; denyRoles: string[] },
  gate: FactGate,
): boolean {
  return isPermitted(object, gate.caller, gate.ladder).ok;
}

const isNamed = (viewer: Viewer) => viewer.userId !== null || viewer.roles.length > 0;

/** Whether the gate's viewer may see this version at all. */
export function mayView(row: FactVersion, gate: FactGate): boolean {
  if (row.userId !== null && row.userId !== gate.viewer.userId) return false;
  const denyRoles = JSON.parse(row.denyRolesJson) as string[];
  // Some member holds a denied role, so a read for no one in particular leaves such facts out.
  if (!isNamed(gate.viewer) && denyRoles.length > 0) return false;
  const object = {
    classification: row.classification,
    allowRoles: JSON.parse(row.allowRolesJson) as string[],
    denyRoles,
  };
  return isPermitted(object, gate.caller, gate.ladder).ok;
}

/**
 * A value with the secrets its viewer is not cleared for redacted, exactly as compile redacts them
 * (src/compiler/passes/redact.ts redactValue: each string read with its key, as in the rendered line).
 */
export function redactValue(value: unknown, gate: FactGate, key?: string): unknown {
  if (gate.clearance.secrets && gate.clearance.pii) return value;
  return redactForClearance(value, gate.clearance, key).value;
}
