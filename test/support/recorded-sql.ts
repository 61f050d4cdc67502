/** A statement run over a Durable Object's storage, with its bindings. */
export interface Statement {
  query: string;
  bindings: unknown[];
}

/**
 * `sql` with every statement it runs recorded in `statements`, in order. `before`, when given, sees each
 * statement first and may throw in its place (as a store that fills up does).
 */
export function recordedSql(
  sql: SqlStorage,
  before?: (query: string) => void,
): { sql: SqlStorage; statements: Statement[] } {
  const statements: Statement[] = [];
  const recorded = new Proxy(sql, {
    get: (target, key) =>
      key === "exec"
        ? (query: string, ...bindings: unknown[]) => {
            before?.(query);
            statements.push({ query, bindings });
            return target.exec(query, ...bindings);
          }
        : Reflect.get(target, key),
  });
  return { sql: recorded, statements };
}

/** Whether a statement reads stored vectors (their `vec` column). */
export const readsVectors = (statement: Statement): boolean =>
  /^\s*SELECT\b[\s\S]*\bvec\b/i.test(statement.query);

/** Whether it reads every vector of a namespace, not some by id: as decoding a copy from the rows does. */
export const readsEveryVector = (statement: Statement): boolean =>
  readsVectors(statement) && !/json_each/.test(statement.query);
