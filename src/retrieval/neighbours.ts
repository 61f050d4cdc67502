/**
 * Neighbour rescue (seed 001, step 6 "Rescue high-value subunits"): a retrieved turn often holds only
 * half of an exchange. A question matches the query's words while the turn after it holds the answer;
 * an answer matches while the question before it says what it answers. Adjacent turns of the same
 * session are offered as candidates at a share of the retrieved turn's score, so they compete for the
 * budget with everything else and are kept only when they outrank other retrieved turns.
 */
export interface Adjacent {
  previous?: string;
  next?: string;
}

export interface Scored {
  id: string;
  score: number;
  /** Set on a rescued turn: the retrieved turn it was attached to. */
  rescuedBy?: string;
}

export interface NeighbourOptions {
  /** Share of the retrieved turn's score given to the turn that answers it (it asked a question). */
  answerShare: number;
  /** Share given to the question a retrieved turn answers. */
  questionShare: number;
  /** Share given to any other adjacent turn of the same session. */
  adjacentShare: number;
}

export const NEIGHBOUR_DEFAULTS: NeighbourOptions = {
  answerShare: 0.8,
  questionShare: 0.6,
  adjacentShare: 0.4,
};

/** Whether a turn asks something, so the next turn in its session is likely its answer. */
export function asksQuestion(text: string): boolean {
  return /\?/.test(text);
}

/**
 * The retrieved turns plus their rescued neighbours, best first. `adjacency` gives each retrieved turn's
 * previous and next turn in the same session (absent across a session boundary); `texts` holds the text of
 * every turn named there. A turn keeps the best score it is offered, whether retrieved or rescued.
 */
export function rescueNeighbours(
  retrieved: readonly Scored[],
  adjacency: ReadonlyMap<string, Adjacent>,
  texts: Pick<ReadonlyMap<string, string>, "get">,
  options: NeighbourOptions = NEIGHBOUR_DEFAULTS,
): Scored[] {
  const best = new Map<string, Scored>();
  const offer = (entry: Scored) => {
    const current = best.get(entry.id);
    if (!current || entry.score > current.score) best.set(entry.id, entry);
  };
  for (const hit of retrieved) offer({ id: hit.id, score: hit.score });
  for (const hit of retrieved) {
    const around = adjacency.get(hit.id);
    if (!around) continue;
    const asks = asksQuestion(texts.get(hit.id) ?? "");
    if (around.next) {
      const share = asks ? options.answerShare : options.adjacentShare;
      offer({ id: around.next, score: hit.score * share, rescuedBy: hit.id });
    }
    if (around.previous) {
      const share = asksQuestion(texts.get(around.previous) ?? "")
        ? options.questionShare
        : options.adjacentShare;
      offer({ id: around.previous, score: hit.score * share, rescuedBy: hit.id });
    }
  }
  return [...best.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
