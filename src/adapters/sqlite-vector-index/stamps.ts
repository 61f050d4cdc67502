/**
 * A number per namespace, set anew at random by every write it tracks, so that a copy held in memory
 * can tell whether storage still holds what it was made from: the namespace's version (its rows, for
 * the decoded copy) and its layout's stamp (its lists' centroids). Random rather than a counter: a copy
 * updated to n by a write that was then rolled back must not match a later, different write that also
 * reaches n.
 */
export interface StampColumn {
  /** A table keyed by `namespace`. */
  table: string;
  column: string;
}

/** Sets a new stamp for the namespace and returns it. */
export function restamp(sql: SqlStorage, where: StampColumn, namespace: string): number {
  const stamp = randomStamp();
  sql.exec(
    `INSERT INTO ${where.table} (namespace, ${where.column}) VALUES (?, ?)
       ON CONFLICT (namespace) DO UPDATE SET ${where.column} = excluded.${where.column}`,
    namespace,
    stamp,
  );
  return stamp;
}

/** The namespace's stamp; 0 before its first. */
export function readStampOf(sql: SqlStorage, where: StampColumn, namespace: string): number {
  return (
    sql
      .exec<{ stamp: number }>(
        `SELECT ${where.column} AS stamp FROM ${where.table} WHERE namespace = ?`,
        namespace,
      )
      .toArray()[0]?.stamp ?? 0
  );
}

/** A random positive integer below 2^53, exactly representable as a SQLite INTEGER and a JS number. */
function randomStamp(): number {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2)) as unknown as [number, number];
  return (high & 0x1fffff) * 2 ** 32 + low || 1;
}
