/**
 * How one list follows from another by a few insertions, deletions and replacements, compared by
 * identity. A new turn changes a few of a warm thread's thousands of settled objects; per-list indexes
 * (the lexical index in pass 5) are then carried over from the previous list, and only the entries of
 * the objects it did not hold are computed.
 */
export interface ListEdits {
  /** For each entry of the previous list, its index in the next one, or -1 where it was dropped. */
  moved: Int32Array;
  /** Indices in the next list of entries the previous one did not hold in that place, ascending. */
  added: number[];
}

/** How far ahead a mismatch looks for the two lists to meet again. */
const LOOKAHEAD = 16;

/**
 * An alignment of `next` with `previous`: every kept entry is the very same value, in the same relative
 * order. Undefined when more than `maxEdits` entries differ, or the lists do not meet again within a
 * run of replacements (unrelated lists): carrying over would then cost about as much as starting afresh.
 */
export function listEdits<T>(
  previous: readonly T[],
  next: readonly T[],
  maxEdits: number,
): ListEdits | undefined {
  const moved = new Int32Array(previous.length);
  const added: number[] = [];
  let i = 0;
  let j = 0;
  let edits = 0;
  let replacements = 0;
  while (i < previous.length && j < next.length) {
    if (previous[i] === next[j]) {
      moved[i++] = j++;
      replacements = 0;
      continue;
    }
    // The shortest run of deletions or insertions after which the two lists meet again.
    let step = 0;
    for (let d = 1; d <= LOOKAHEAD && step === 0; d++) {
      if (i + d < previous.length && previous[i + d] === next[j]) step = -d;
      else if (j + d < next.length && next[j + d] === previous[i]) step = d;
    }
    if (step < 0) {
      for (let d = 0; d < -step; d++) moved[i++] = -1;
      edits -= step;
    } else if (step > 0) {
      for (let d = 0; d < step; d++) added.push(j++);
      edits += step;
    } else {
      // Neither: the entry was replaced (a changed record resolves to a new object in its place).
      moved[i++] = -1;
      added.push(j++);
      edits += 2;
      if (++replacements > LOOKAHEAD) return undefined;
    }
    if (edits > maxEdits) return undefined;
  }
  edits += previous.length - i + next.length - j;
  if (edits > maxEdits) return undefined;
  while (i < previous.length) moved[i++] = -1;
  while (j < next.length) added.push(j++);
  return { moved, added };
}

/** How many entries two lists begin with in common, compared by identity. */
export function sharedStart<T>(a: readonly T[], b: readonly T[]): number {
  const most = Math.min(a.length, b.length);
  let i = 0;
  while (i < most && a[i] === b[i]) i++;
  return i;
}

/** Whether `list` begins with every entry of `start`, in order, compared by identity. */
export const beginsWith = <T>(list: readonly T[], start: readonly T[]) =>
  list.length >= start.length && sharedStart(list, start) === start.length;

/** A shorter run shared by a pass's lists is not worth reading apart. */
export const MIN_RUN = 32;

/**
 * The run of entries a pass's lists begin with, and what the pass worked out of it. A large project's
 * candidate facts change with every question but begin with the same held newest versions, in the same
 * order, until a write: a pass that reads every object of its list reads those once per run, and each
 * list after only its own entries (lists are never mutated, so a run's value stays true). A run is the
 * start two consecutive lists share, at least MIN_RUN entries; it is read when a later list begins with
 * it too (a run met once is not worth reading apart), and kept while lists do. Holds one run and the
 * pass's last list.
 */
export class LeadingRun<T, V> {
  private last?: readonly T[];
  private run?: { entries: readonly T[]; value?: V };

  /** The kept run `list` begins with, with its value (`read` of the run, made once); else undefined. */
  of(list: readonly T[], read: (run: readonly T[]) => V): { length: number; value: V } | undefined {
    const last = this.last;
    this.last = list;
    const run = this.run;
    if (run && beginsWith(list, run.entries)) {
      run.value ??= read(run.entries);
      return { length: run.entries.length, value: run.value };
    }
    const shared = last ? sharedStart(last, list) : 0;
    this.run = shared >= MIN_RUN ? { entries: list.slice(0, shared) } : undefined;
    return undefined;
  }
}
