// A SqlStorage-shaped shim over Node 22's built-in SQLite (`node:sqlite`), so code written for a
// Durable Object's `ctx.storage.sql` runs in a Node script: `exec(query, ...bindings)` returning a
// cursor to iterate, `toArray()` or `one()`. Statements are prepared once and reused, as workerd does.
// Differences that do not matter to its callers: BLOBs come back as Uint8Array (workerd gives
// ArrayBuffer; readers here accept both), and there is no implicit transaction per request (callers
// wrap a request's writes in `transaction`). The file is opened with `synchronous = OFF`: a Durable
// Object's writes reach disk after the request, off its critical path, so fsyncs are not timed here.
// `rowsRead` counts the rows each query text has returned, for benches that report reads.
import { DatabaseSync, type StatementSync } from "node:sqlite";

type Binding = string | number | bigint | null | ArrayBuffer | ArrayBufferView;
type Value = string | number | bigint | null | Uint8Array;

export function nodeSqlStorage(path = ":memory:") {
  const database = new DatabaseSync(path);
  database.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF");
  const statements = new Map<string, StatementSync>();
  const rowsRead = new Map<string, number>();
  const prepared = (query: string) => {
    let statement = statements.get(query);
    if (!statement) {
      statement = database.prepare(query);
      statements.set(query, statement);
    }
    return statement;
  };
  const exec = (query: string, ...bindings: Binding[]) => {
    const values = bindings.map((b) => (b instanceof ArrayBuffer ? new Uint8Array(b) : b)) as Value[];
    const statement = prepared(query);
    const rows =
      statement.columns().length > 0
        ? counted(query, statement.iterate(...values))
        : runOnce(statement, values);
    const cursor = {
      [Symbol.iterator]: () => rows,
      next: () => rows.next(),
      toArray: () => [...rows],
      one: () => {
        const [row] = [...rows];
        if (!row) throw new Error("Expected exactly one result from SQL query, but got no results.");
        return row;
      },
    };
    return cursor;
  };
  function* counted<T>(query: string, rows: Iterator<T>): Generator<T> {
    for (let next = rows.next(); !next.done; next = rows.next()) {
      rowsRead.set(query, (rowsRead.get(query) ?? 0) + 1);
      yield next.value;
    }
  }
  /** Runs `body` in one transaction, as a Durable Object commits one request's writes together. */
  async function transaction<T>(body: () => Promise<T>): Promise<T> {
    database.exec("BEGIN");
    try {
      const result = await body();
      database.exec("COMMIT");
      return result;
    } catch (error) {
      database.exec("ROLLBACK");
      throw error;
    }
  }
  return { sql: { exec } as unknown as SqlStorage, database, rowsRead, transaction };
}

function runOnce(statement: StatementSync, values: Value[]): Iterator<never> {
  statement.run(...values);
  return [][Symbol.iterator]();
}
