import type { ClassificationName } from "../domain/classification";
import type { ScopeName } from "../domain/scopes";

/**
 * Reads the explicit bracket markers that upstream systems put in fact text, such as
 * "[RESTRICTED: Strategic pricing restricted to VP+]" or "[SCOPE: what-if discussion]". Markers only
 * fill fields the writer left unset; an explicit field always wins.
 */
export interface MarkerHints {
  classification?: ClassificationName;
  allowRoles?: string[];
  scope?: ScopeName;
  scopeLabel?: string;
}

const RESTRICTED = /\[(RESTRICTED|CONFIDENTIAL|HIGHLY[ _]RESTRICTED)\s*:([^\]]*)\]/i;
const SCOPE = /\[SCOPE\s*:\s*([^\]]+)\]/i;

const HYPOTHETICAL_WORDS =
  /\b(what[- ]if|hypothetical|scenario|brainstorm\w*|estimat\w*|sandbox|exploratory|contingency|speculat\w*)\b/i;
const DRAFT_WORDS = /\bdraft\b/i;
const SESSION_WORDS = /\bsession\b/i;

export function readMarkers(text: string): MarkerHints {
  const hints: MarkerHints = {};
  const restricted = RESTRICTED.exec(text);
  if (restricted) {
    const level = (restricted[1] ?? "").toLowerCase().replace(/[ _]/, "_");
    hints.classification =
      level === "confidential"
        ? "confidential"
        : level === "highly_restricted"
          ? "highly_restricted"
          : "restricted";
    const audience = /restricted to\s+(.+)$/i.exec((restricted[2] ?? "").trim())?.[1];
    if (audience) hints.allowRoles = [audience.trim().toLowerCase()];
  }
  const scope = SCOPE.exec(text);
  if (scope) {
    const label = (scope[1] ?? "").trim();
    hints.scopeLabel = label;
    if (DRAFT_WORDS.test(label)) hints.scope = "draft";
    else if (HYPOTHETICAL_WORDS.test(label)) hints.scope = "hypothetical";
    else if (SESSION_WORDS.test(label)) hints.scope = "session";
    else hints.scope = "task";
  }
  return hints;
}
