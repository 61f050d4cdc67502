/** The only key accepted for tenant `dev`, and only while TENURE_ENV is "local". */
export const LOCAL_DEV_KEY = "local-dev-key";

const encoder = new TextEncoder();

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Compares the presented key's hash with the stored hash in constant time. Hashing first makes both
 * inputs the same length, so the comparison leaks nothing about either.
 */
export async function keyMatches(presented: string, storedSha256: string): Promise<boolean> {
  const presentedHash = encoder.encode(await sha256Hex(presented));
  const stored = encoder.encode(storedSha256.toLowerCase());
  if (presentedHash.byteLength !== stored.byteLength) return false;
  return crypto.subtle.timingSafeEqual(presentedHash, stored);
}
