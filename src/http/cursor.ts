/**
 * Page cursors: the position of the last row a page returned, in the order the list is read in, as a
 * tuple of strings. Opaque to clients: base64url of the tuple as JSON.
 */
export function encodePosition(parts: readonly string[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(parts));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The tuple of `length` strings a cursor holds, or undefined when it is not one this API issued. */
export function decodePosition(cursor: string, length: number): string[] | undefined {
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const parsed: unknown = JSON.parse(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes),
    );
    if (!Array.isArray(parsed) || parsed.length !== length || !parsed.every((v) => typeof v === "string"))
      return;
    return parsed as string[];
  } catch {
    return undefined;
  }
}

/**
 * The identity of a list a cursor pages through: what selects its rows (a path's id, the filters), as a
 * short hash. A cursor carries it after its position, so a cursor of one list is refused on another
 * (another entity's messages, other filters) instead of paging from a position that means nothing
 * there. A guard against mistakes, not a secret: FNV-1a over the parts as JSON.
 */
export function listIdentity(parts: readonly (string | undefined)[]): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(JSON.stringify(parts.map((p) => p ?? null)))) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
