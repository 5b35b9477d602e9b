// The host an Ownership drives in tests that watch the store and the spool, not the sessions: it
// follows and stops nothing, and says every session is followed.
import type { OwnedSessionsHost } from '../../../src/cluster/ownership.js';

export const INERT_HOST: OwnedSessionsHost = {
  follow: () => undefined,
  unfollow: async () => undefined,
  isFollowed: () => true,
  respecify: () => undefined,
};
