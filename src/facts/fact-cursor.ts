/**
 * GET /facts pages through versions in one fixed order, (project_id, key, tx_start, id), which is unique
 * (id is unique in a project), so a cursor is the position of the last version a page returned and the
 * next page starts strictly after it: no version is skipped or repeated, however many there are.
 * Opaque to clients: base64url of that position as JSON.
 */
export interface FactPosition {
  projectId: string;
  key: string;
  txStart: string;
  id: string;
}

export function encodeCursor(p: FactPosition): string {
  const bytes = new TextEncoder().encode(JSON.stringify([p.projectId, p.key, p.txStart, p.id]));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The position a cursor names, or undefined when it is not one this API issued. */
export function decodeCursor(cursor: string): FactPosition | undefined {
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const parsed: unknown = JSON.parse(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes),
    );
    if (!Array.isArray(parsed) || parsed.length !== 4 || !parsed.every((v) => typeof v === "string")) return;
    const [projectId, key, txStart, id] = parsed as [string, string, string, string];
    return { projectId, key, txStart, id };
  } catch {
    return undefined;
  }
}
