/**
 * A write refused because the store holding it has no room left: a D1 database at its size limit (its
 * binding throws a plain Error, "D1_ERROR: Exceeded maximum DB size.", or names the account's storage
 * limit), or a Durable Object's SQLite storage at its limit ("database or disk is full: SQLITE_FULL").
 * Reads and deletes still work in both. Nothing else may read as "full": a database briefly unreachable,
 * taken for one out of room, would send an operator to buy storage for nothing. So a message counts only
 * when it begins with the store's own words: a wrapper's message (a query builder's "Failed query: …",
 * which quotes the query's parameters, user text among them) never does, and its cause is read instead.
 */
const FULL =
  /^(?:D1_ERROR: )?(?:Exceeded maximum DB size|Your account has exceeded D1's maximum account storage limit|database or disk is full)/i;

/** Which store said it was full: a D1 database (its errors carry D1's prefix) or a Durable Object's own. */
export type FullStore = "database" | "thread";

/** The store `error` (or an error it wraps) says is full, or undefined when it says nothing of the kind. */
export function fullStore(error: unknown): FullStore | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (FULL.test(e.message)) return e.message.startsWith("D1_") ? "database" : "thread";
  }
  return undefined;
}

/**
 * A store's refusal as the write path saw it: which store, and what the request had stored before it
 * (`stored`: an ingest writes its facts to D1 first, then its messages to the thread's storage).
 */
export class StoreFull<Stored = unknown> extends Error {
  constructor(
    readonly store: FullStore,
    cause: unknown,
    readonly stored?: Stored,
  ) {
    super(storageFullDetail(store, stored !== undefined), { cause });
    this.name = "StoreFull";
  }
}

/** The problem's detail: what was not stored, what still works, and what can be done. */
export function storageFullDetail(store: FullStore, factsStored = false): string {
  const goOn = "Reads and compiles go on.";
  if (store === "thread") {
    const facts = factsStored
      ? " Its facts were stored (in the project's database): sent again, the batch counts them as duplicates."
      : "";
    return (
      "This thread's own storage (its Durable Object) is full: the request's messages and writes to the " +
      `thread were not stored.${facts} ${goOn} Go on in a new thread of the same project: facts are project-wide.`
    );
  }
  return (
    `The project's database is full: nothing of this request was stored. ${goOn} An operator frees room in ` +
    "it (a shorter trace_retention_days: traces fill a database first) or moves projects off it; GET " +
    "/capacity reports each database's size against its limit."
  );
}
