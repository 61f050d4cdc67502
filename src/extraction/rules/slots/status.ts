import { isTitle } from "../speaker";
import { cleanValue } from "../values";
import { reading, type SlotReading } from "./reading";
import { NP, PRONOUN_OBJECT, statusKey, subjectKey } from "./subject-keys";

/** Statuses: "the launch is delayed", "cancel that purchase" → `<subject>_status`. */

const STATUS_PARTICIPLE = new RegExp(
  String.raw`^${NP}\s+(?:is\s+|are\s+|has been\s+|have been\s+|was\s+|were\s+|got\s+|been\s+|just\s+|now\s+|officially\s+)?(approved|cancell?ed|canceled|rejected|delayed|postponed|paused|blocked|completed|shipped|launched|signed|finali[sz]ed|closed|resolved|suspended|terminated|confirmed|on hold|deferred|rescheduled|withdrawn|denied|accepted|declined)\b(.*)$`,
  "i",
);
const ACTIVE_OBJECT = /^\s+(?:the|a|an|our|this|that|it|them|his|her|their|my|your|us|me|him|[$€£])/i;

export function statusReading(clause: string): SlotReading | null {
  const m = STATUS_PARTICIPLE.exec(clause);
  if (!m) return null;
  // "The CFO approved the budget" is an act with an object, not a status.
  if (ACTIVE_OBJECT.test(m[3] ?? "") || isTitle(m[1] ?? "")) return null;
  const subject = subjectKey(m[1] ?? "");
  if (!subject || subject.generic) return null;
  const v = cleanValue(`${m[2] ?? ""}${m[3] ?? ""}`);
  if (!v) return null;
  return reading("status", statusKey(subject.key), v);
}

const HALT =
  /^(?:let'?s\s+|please\s+|we need to\s+|we should\s+|we'?ll\s+|we will\s+|we have to\s+|we must\s+|i'?ll\s+|i will\s+)?(cancel|hold off on|put on hold|pause|stop|halt|freeze|suspend|revoke|withdraw|terminate|kill|scrap|shelve)\s+(?:the\s+|that\s+|this\s+|our\s+|my\s+|any\s+)?(.+)$/i;
const HALT_STATUS: Record<string, string> = {
  cancel: "cancelled",
  kill: "cancelled",
  scrap: "cancelled",
  "hold off on": "on hold",
  "put on hold": "on hold",
  shelve: "on hold",
  pause: "paused",
  stop: "stopped",
  halt: "stopped",
  freeze: "frozen",
  suspend: "suspended",
  revoke: "revoked",
  withdraw: "withdrawn",
  terminate: "terminated",
};
const HALT_OBJECT_CUT = /\s+(?:for now|until|because|due to|since|as|while|pending|,).*$/i;

/** "Cancel that purchase", "Hold off on Acme Supplies": the object's status changes. */
export function haltReading(clause: string): SlotReading | null {
  const m = HALT.exec(clause);
  if (!m) return null;
  const status = HALT_STATUS[(m[1] ?? "").toLowerCase()];
  const object = (m[2] ?? "").replace(HALT_OBJECT_CUT, "").trim();
  if (!status || !object) return null;
  if (PRONOUN_OBJECT.test(object)) return reading("status", null, status, { change: true, family: "status" });
  const subject = subjectKey(object);
  if (!subject || subject.generic) return null;
  return reading("status", statusKey(subject.key), status, { change: true });
}
