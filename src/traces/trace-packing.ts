import { Buffer } from "node:buffer";

/**
 * How `trace_json` holds a trace since format 3: the format-2 text (trace-record.ts) gzipped, in base64,
 * as `{"v":3,"gz":"…"}`. A trace lists ids by the hundred (each state item's 64 source messages, each
 * retrieved turn, each omitted candidate), which compress well: at 100,000 messages a thread's traces
 * took some 100 KB each in D1, one per compile, kept for the retention period. Base64 keeps the column
 * text, as rows written before hold their trace as text and are read as they are.
 */
const PACKED_FORMAT = 3;
const PACKED_PREFIX = `{"v":${PACKED_FORMAT},`;

/** The packed form of a trace's stored text. */
export async function packTrace(text: string): Promise<string> {
  const zipped = await new Response(
    new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
  ).arrayBuffer();
  return JSON.stringify({ v: PACKED_FORMAT, gz: Buffer.from(zipped).toString("base64") });
}

/** A trace's stored text, unpacked when it is packed; text stored before format 3 as it is. */
export async function unpackTrace(stored: string): Promise<string> {
  if (!stored.startsWith(PACKED_PREFIX)) return stored;
  const { gz } = JSON.parse(stored) as { gz: string };
  return new Response(
    new Blob([Buffer.from(gz, "base64")]).stream().pipeThrough(new DecompressionStream("gzip")),
  ).text();
}
