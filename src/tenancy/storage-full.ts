/**
 * A write refused because the store holding it has no room left: a D1 database at its size limit (D1
 * throws a plain Error, "D1_ERROR: Exceeded maximum DB size.", or names the account's storage limit), or
 * a Durable Object's SQLite storage at its limit ("database or disk is full: SQLITE_FULL"). Reads and
 * deletes still work in both. Nothing else may read as "full": a database briefly unreachable, taken for
 * one out of room, would send an operator to buy storage for nothing.
 */
const FULL = [
  /Exceeded maximum DB size/i,
  /maximum account storage limit/i,
  /database or disk is full/i,
  /SQLITE_FULL\b/,
];

/** Whether `error` (or the error it wraps) is a store saying it is full. An error crossing RPC keeps its message. */
export function isStorageFull(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (FULL.some((pattern) => pattern.test(e instanceof Error ? e.message : ""))) return true;
  }
  return false;
}

/** Where a write did not fit, for the problem a client and an operator read. */
export type FullStore = "facts" | "thread";

/**
 * A store's refusal as the write path saw it: which store, and whether the request's facts were stored
 * before the thread's own storage refused the rest (an ingest writes its facts to D1 first).
 */
export class StoreFull extends Error {
  constructor(
    readonly store: FullStore,
    readonly factsStored: boolean,
    cause: unknown,
  ) {
    super(storageFullDetail(store, factsStored), { cause });
    this.name = "StoreFull";
  }
}

/** Runs `write`, turning a store's "full" into StoreFull; any other error passes as it is. */
export async function refusedWhenFull<T>(
  store: FullStore,
  write: () => T | Promise<T>,
  factsStored = false,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw isStorageFull(error) ? new StoreFull(store, factsStored, error) : error;
  }
}

/** The problem's detail: what was not stored, what still works, and what can be done. */
export function storageFullDetail(store: FullStore | undefined, factsStored = false): string {
  const goOn = "Reads and compiles go on.";
  if (store === "thread") {
    const facts = factsStored
      ? " Its facts were stored (in the project's database): sent again, the batch counts them as duplicates."
      : "";
    return (
      `This thread's own storage (its Durable Object) is full: the request's messages and working-state ` +
      `writes were not stored.${facts} ${goOn} Go on in a new thread of the same project: facts are project-wide.`
    );
  }
  const where =
    store === "facts" ? "The database holding this project's facts" : "The storage this request writes to";
  return (
    `${where} is full: nothing of this request was stored. ${goOn} An operator frees room in it (a shorter ` +
    "trace_retention_days: traces fill a database first) or moves projects off it; GET /capacity reports " +
    "each database's size against its limit."
  );
}
