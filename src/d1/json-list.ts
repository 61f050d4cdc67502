/**
 * A stored JSON list column as SQLite's JSON functions should read it (in D1 and in an object's own
 * SQLite): the column when it holds a JSON array, else '[]'. The writer always stores an array; a value
 * that is not one must cost the references it would have named, never the statement that reads it
 * (json_each fails the whole statement on malformed JSON).
 */
export const jsonList = (column: string): string =>
  `CASE WHEN json_valid(${column}) AND json_type(${column}) = 'array' THEN ${column} ELSE '[]' END`;
