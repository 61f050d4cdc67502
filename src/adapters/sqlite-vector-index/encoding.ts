import { VectorIndexInputError } from "../../ports/vector-index";

/** How vectors and metadata are stored: Float32 bytes with a precomputed L2 norm, metadata as strings. */

export function norm(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += (values[i] as number) ** 2;
  return Math.sqrt(sum);
}

/** A stored BLOB as the `dims` floats it encodes; throws when its length does not match. */
export function floats(blob: ArrayBuffer | ArrayBufferView, dims: number, id: string): Float32Array {
  const bytes =
    blob instanceof ArrayBuffer
      ? new Uint8Array(blob)
      : new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength);
  if (bytes.byteLength !== dims * 4) {
    throw new Error(`stored vector '${id}' has ${bytes.byteLength} bytes, expected ${dims * 4}`);
  }
  // Copy when the bytes are not 4-aligned, as a Float32Array view requires.
  return bytes.byteOffset % 4 === 0
    ? new Float32Array(bytes.buffer, bytes.byteOffset, dims)
    : new Float32Array(bytes.slice().buffer);
}

/** Metadata and filters hold strings only: that is what the SQL filter compares. */
export function checkMetadata(metadata: Record<string, unknown>, what: string): void {
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== "string") throw new VectorIndexInputError(`${what}: '${key}' must be a string`);
  }
}
