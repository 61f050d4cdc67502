import { type DeadClaim, sameClaims } from "./dead-claim";
import { followsClaims, type SuccessionMemos } from "./succession";

/**
 * The last dead list handed out, handed back while an equal one comes in: verdicts and masked texts are
 * kept per list, so an equal list keeps them, and a list that differs follows the last (followsClaims).
 */
export class DeadListKeeper {
  private last?: DeadClaim[];

  same(dead: DeadClaim[], memos: SuccessionMemos): DeadClaim[] {
    const last = this.last;
    if (last && sameClaims(last, dead)) return last;
    if (last) followsClaims(dead, last, memos);
    this.last = dead;
    return dead;
  }
}
