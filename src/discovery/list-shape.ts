// What the service's session list turned out to be, and the one warning each finding is worth.
//
// States: the mode starts at `all` (status=all) and only goes down, to `split` (status=active and
// status=deleted apart) and `live` (the default list alone), each time the service refuses a
// status (recent-sessions.ts walkNewest); every step down is said once, naming what it costs. A
// list seen not to be newest first is said once for the life of the process: the walks then read
// the whole list at every poll, which is correct but costs what the list's size costs.
import type { Emit } from '../vocabulary/facts.js';
import type { ListMode, NewestWalk } from './recent-sessions.js';

const HOW: { [M in ListMode]: string } = {
  all: 'reading status=all',
  split: 'reading status=active and status=deleted apart instead',
  live: 'reading the live list alone instead: a session created and deleted between two polls is missed',
};

export class ListShape {
  /** How the newest sessions are read at the next poll. */
  mode: ListMode = 'all';
  private orderSaid = false;

  constructor(private readonly emit: Emit) {}

  /** Takes in what a walk of the newest sessions found. */
  note(w: NewestWalk): void {
    if (w.mode !== this.mode && w.refused !== undefined) {
      this.mode = w.mode;
      this.emit({
        f: 'discovery_list_shape',
        shape: 'status_refused',
        detail: `the service refused a session list status (${w.refused.detail}); ${HOW[w.mode]}`,
      });
    }
    if (w.order?.risen === true && !this.orderSaid) {
      this.orderSaid = true;
      this.emit({
        f: 'discovery_list_shape',
        shape: 'not_newest_first',
        detail:
          'the service lists sessions other than newest first: every poll reads the whole list instead of stopping at the sessions it already saw',
      });
    }
  }
}
