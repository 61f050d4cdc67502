import type { StoredFactView } from "../api/schemas/facts";
import type { FactVersion } from "../domain/fact-version";
import { decodeCursor, encodeCursor, type FactPosition } from "./fact-cursor";
import type { FactPageFilter, FactRepository } from "./fact-repository";
import { toFactView } from "./fact-view";
import { type FactGate, mayView, redactValue } from "./fact-visibility";
import { currentFacts } from "./temporal";

/**
 * The project-wide fact reads (GET /facts and fact history), each through the viewer's gate: versions
 * the viewer may not see are left out, and values are redacted for a viewer without clearance.
 */

/** Rows read per round while filling a page the permission check thins out; rounds per page at most. */
const MAX_ROUNDS = 10;

export const viewFor = (row: FactVersion, gate: FactGate): StoredFactView => {
  const view = toFactView(row);
  return { ...view, value: redactValue(view.value, gate, view.key) };
};

const position = (row: FactVersion): FactPosition => ({
  projectId: row.projectId,
  key: row.key,
  txStart: row.txStart,
  id: row.id,
});

/**
 * One page: SQL applies the filters and the owner rule before its limit, and the role rules (JSON lists
 * the compiler's isPermitted reads) thin what it returns, so rounds continue after the last row read
 * until the page is full. A page may come back short, with a cursor, when many versions in a row are
 * hidden: it never reads without bound.
 */
export async function readFactPage(
  repository: FactRepository,
  filter: FactPageFilter,
  gate: FactGate,
  after: FactPosition | undefined,
  limit: number,
): Promise<{ facts: StoredFactView[]; nextCursor: string | null }> {
  const facts: StoredFactView[] = [];
  let cursor = after;
  let more = true;
  for (let round = 0; round < MAX_ROUNDS && more && facts.length < limit; round++) {
    // One row more than the page can take: whether any lies past it is then known without a read.
    const rows = await repository.page(filter, cursor, limit + 1);
    let read = 0;
    for (const row of rows) {
      if (facts.length === limit) break;
      cursor = position(row);
      read++;
      if (mayView(row, gate)) facts.push(viewFor(row, gate));
    }
    more = read < rows.length || rows.length > limit;
  }
  return { facts, nextCursor: more && cursor ? encodeCursor(cursor) : null };
}

/**
 * One page over several databases (a tenant whose projects are spread over more than one, read without
 * a project): each database's own page after the same cursor, merged in the cursor's order and cut to
 * the limit. A project lives in one database, so the order is the same as over one; the next cursor is
 * the last version taken, and a database whose page was cut continues from it.
 */
export async function readFactPageAcross(
  repositories: FactRepository[],
  filter: FactPageFilter,
  gate: FactGate,
  after: FactPosition | undefined,
  limit: number,
): Promise<{ facts: StoredFactView[]; nextCursor: string | null }> {
  if (repositories.length === 1)
    return readFactPage(repositories[0] as FactRepository, filter, gate, after, limit);
  const pages = await Promise.all(repositories.map((r) => readFactPage(r, filter, gate, after, limit)));
  const merged = pages.flatMap((page) => page.facts).sort((a, b) => compareViews(a, b));
  const facts = merged.slice(0, limit);
  const last = facts.at(-1);
  const more = merged.length > limit || pages.some((page) => page.nextCursor !== null);
  if (!more) return { facts, nextCursor: null };
  if (last) return { facts, nextCursor: encodeCursor(viewPosition(last)) };
  // Every version read was hidden from this viewer: continue from the least advanced database.
  const positions = pages.flatMap((page) => {
    const at = page.nextCursor ? decodeCursor(page.nextCursor) : undefined;
    return at ? [at] : [];
  });
  const least = positions.sort(comparePositions)[0];
  return { facts, nextCursor: least ? encodeCursor(least) : null };
}

const viewPosition = (view: StoredFactView): FactPosition => ({
  projectId: view.project_id,
  key: view.key,
  txStart: view.tx_start,
  id: view.id,
});

/** GET /facts's order, (project_id, key, tx_start, id), as fact-cursor.ts states it. */
function comparePositions(a: FactPosition, b: FactPosition): number {
  const byText = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (
    byText(a.projectId, b.projectId) ||
    byText(a.key, b.key) ||
    byText(a.txStart, b.txStart) ||
    byText(a.id, b.id)
  );
}

const compareViews = (a: StoredFactView, b: StoredFactView) =>
  comparePositions(viewPosition(a), viewPosition(b));

/**
 * A fact's lineage as the viewer may see it: undefined when the fact itself is hidden from them (so a
 * hidden fact reads as absent, not as forbidden), else its visible versions and their chain.
 */
export function historyFor(
  fact: FactVersion,
  versions: FactVersion[],
  gate: FactGate,
): { current: StoredFactView | null; chain: string[]; versions: StoredFactView[] } | undefined {
  if (!mayView(fact, gate)) return undefined;
  const visible = versions.filter((v) => mayView(v, gate));
  const byId = new Map(visible.map((v) => [v.id, v]));
  const chain: string[] = [];
  let cursor: FactVersion | undefined =
    visible.find((v) => v.supersedes === null && v.contradictionStatus !== "disputed") ?? fact;
  while (cursor && !chain.includes(cursor.id)) {
    chain.push(cursor.id);
    cursor = cursor.supersededBy ? byId.get(cursor.supersededBy) : undefined;
  }
  const current = currentFacts(visible)[0];
  return {
    current: current ? viewFor(current, gate) : null,
    chain,
    versions: visible.map((v) => viewFor(v, gate)),
  };
}
