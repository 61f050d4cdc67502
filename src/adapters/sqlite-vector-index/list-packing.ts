import { floats } from "./encoding";
import { type Member, packIds, packOf, unpack } from "./list-codes";
import {
  countMembers,
  type ListMember,
  readMembers,
  readPack,
  readTailRows,
  writePack,
} from "./list-storage";

/**
 * Keeping packs current. A list is packed again once enough of its members are in its tail (written
 * since its pack was made, read row by row by every query that probes it): the tail is encoded and
 * added to the pack, replacing older entries of the same ids. Entries of vectors that left the list
 * (deleted, or written again into another list) stay in the pack, unused, until there are as many of
 * them as a tail warrants; the list is then packed afresh from all its members. Cost: reading the
 * pack (one row, about 120 KB at 300 members) and the tail rows, and writing the pack.
 */

/** Stale entries (of vectors no longer in the list) that make a list worth packing afresh. */
const STALE_ENTRIES = 32;

/** A list's members decoded, in the order they were read. */
export function decodedMembers(members: readonly ListMember[], dims: number): Member[] {
  return members.map((m) => ({ id: m.id, values: floats(m.vec, dims, m.id), norm: m.norm }));
}

/** Packs `list` from these members (all of its current ones); each is packed from then on. */
export function storePack(
  sql: SqlStorage,
  namespace: string,
  list: number,
  members: Member[],
  dims: number,
): void {
  writePack(sql, namespace, list, packOf(members, dims));
}

/** Adds `list`'s tail to its pack, or packs it afresh when the pack holds too many stale entries. */
export function repack(sql: SqlStorage, namespace: string, list: number, dims: number): void {
  const tail = decodedMembers(readTailRows(sql, namespace, list), dims);
  const stored = readPack(sql, namespace, list);
  const previous = stored && unpack(packIds(stored.ids), stored.codes, dims);
  const rewritten = new Set(tail.map((member) => member.id));
  const kept = previous?.ids.filter((id) => !rewritten.has(id)).length ?? 0;
  if (!previous || kept + tail.length - countMembers(sql, namespace, list) >= STALE_ENTRIES) {
    storePack(sql, namespace, list, decodedMembers(readMembers(sql, namespace, list), dims), dims);
    return;
  }
  writePack(sql, namespace, list, packOf(tail, dims, { pack: previous, keep: (id) => !rewritten.has(id) }));
}
