import { decodePosition, encodePosition } from "../http/cursor";

/**
 * GET /facts pages through versions in one fixed order, (project_id, key, tx_start, id), which is unique
 * (id is unique in a project), so a cursor is the position of the last version a page returned and the
 * next page starts strictly after it: no version is skipped or repeated, however many there are.
 */
export interface FactPosition {
  projectId: string;
  key: string;
  txStart: string;
  id: string;
}

export function encodeCursor(p: FactPosition): string {
  return encodePosition([p.projectId, p.key, p.txStart, p.id]);
}

/** The position a cursor names, or undefined when it is not one this API issued. */
export function decodeCursor(cursor: string): FactPosition | undefined {
  const parts = decodePosition(cursor, 4);
  if (!parts) return undefined;
  const [projectId, key, txStart, id] = parts as [string, string, string, string];
  return { projectId, key, txStart, id };
}
