/**
 * A JSON parameter is kept well under D1's 2 MB bound on a string: rows that travel as one parameter of
 * an `INSERT … SELECT … FROM json_each(?)` are sent in runs of at most this many bytes.
 */
export const JSON_RUN_BYTES = 500_000;

/**
 * Items as JSON array texts of at most `maxBytes` each (an item larger than that travels alone), in the
 * order given. D1 runs a batch's statements one at a time, each with its own overhead: hundreds of rows
 * inserted from one parameter cost a fraction of as many single-row statements.
 */
export function jsonRuns(items: readonly unknown[], maxBytes = JSON_RUN_BYTES): string[] {
  const runs: string[][] = [];
  let size = Number.POSITIVE_INFINITY;
  for (const item of items) {
    const json = JSON.stringify(item);
    if (size + json.length > maxBytes) {
      runs.push([]);
      size = 0;
    }
    runs[runs.length - 1]?.push(json);
    size += json.length + 1;
  }
  return runs.map((run) => `[${run.join(",")}]`);
}
