/**
 * What a thread capability may ask of the Durable Object it lives in. Each capability is written
 * against the narrowest slice it needs (`SqlHost & ClockHost`, say), never against the object, so a
 * test can hand it a host over any SQLite storage and a fixed clock, and no capability can reach
 * another's tables through the object.
 */

/** The object's own SQLite storage. A capability touches only the tables it creates. */
export interface SqlHost {
  readonly sql: SqlStorage;
}

/** Runs statements as one storage transaction (`transactionSync`): all of them or none. */
export interface TransactionHost {
  transaction<T>(run: () => T): T;
}

/**
 * Runs async work with no other event delivered to the object meanwhile (`blockConcurrencyWhile`):
 * work that awaits D1 or an adapter between its reads and its writes, such as a chain of supersessions.
 */
export interface ExclusiveHost {
  exclusive<T>(run: () => Promise<T>): Promise<T>;
}

/** Keeps the object alive for work that outlives the request that started it (`waitUntil`). */
export interface BackgroundHost {
  background(work: Promise<unknown>): void;
}

/** Wall-clock time as an ISO-8601 instant. */
export interface ClockHost {
  now(): string;
}
