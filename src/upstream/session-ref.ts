// A session reference may be a name: every /browsers/{id_or_name} route of the service takes a
// session's name as well as its id (docs/service-api.md "Session names on sub-routes"). The
// bridge keys checkpoints and log.record.uid by the reference it was given, so a configured name
// is worth a warning: a later session under the same name would resume from this one's position.
// GET /browsers/{ref} answers the session, whose `session_id` tells a name from an id.
import { isRecord } from '../util/guards.js';

/** The id of the session `ref` names, when `ref` is a name and not that id; else undefined. */
export function namedSession(ref: string, body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const id = body.session_id;
  return typeof id === 'string' && id !== '' && id !== ref ? id : undefined;
}

/** What `check` says of a configured session that is a name. */
export function sessionNameWarning(ref: string, id: string): string {
  return `"${ref}" is the name of session ${id}: configure the id, since the bridge keeps a session's position under what it is given and a later session under the same name would resume from this one's`;
}
