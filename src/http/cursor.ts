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
