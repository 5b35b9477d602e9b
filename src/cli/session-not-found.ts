// What a 404 on a session's stream means, said the way `check` says it: a missing (or ended)
// session, or a BROWSER_API_URL that is not the session service's API root at all (service-identity.ts
// decides from the 404's shape and from a route that cannot exist). `tail` asks once, when its very
// first request was answered 404, so a wrong base path is not reported as a missing session.
import type { UpstreamClient } from '../upstream/client.js';
import { displayUrl } from '../mapping/display-url.js';
import { probeNoRoute, probeSession } from './check-probes.js';
import { answersLikeNoRoute, lacksErrorShape, notTheServiceText, wrongBasePathText } from './service-identity.js';

export async function explainSessionNotFound(
  client: UpstreamClient,
  baseUrl: string,
  id: string,
  timeoutMs: number,
): Promise<string> {
  const missing = `session ${id} not found: it does not exist or has ended`;
  const answer = await probeSession(client, id);
  if (answer.kind !== 'http' || answer.status !== 404) return missing;
  const where = displayUrl(baseUrl);
  const route = `GET /browsers/${id}/telemetry/stream`;
  if (lacksErrorShape(answer)) return notTheServiceText(where, route, answer);
  const noRoute = await probeNoRoute(client, timeoutMs);
  if (noRoute && answersLikeNoRoute(answer, noRoute, [id])) return wrongBasePathText(where, route, answer);
  return missing;
}
