// Is the thing at BROWSER_API_URL the session service, at the right base path? A 404 alone proves
// neither: an OTLP receiver, a web server or a wrong path prefix all answer 404 to
// /browsers/{id}/telemetry/stream. Two signals decide, both pure:
//   1. The service answers every error in its Error shape {code, message} (docs/service-api.md "Errors").
//      A 4xx without it comes from something else.
//   2. At a wrong base path, the service's routes do not exist there: a known route answers exactly
//      like a route that cannot exist (same status, code and message once paths are blanked out).
//      At the right base path a missing session or pool has its own answer.
import { describeApiError, type ApiErrorBody } from '../upstream/api-error.js';

export interface RouteAnswer {
  status: number;
  error: ApiErrorBody;
}

/**
 * True when a 4xx answer lacks the service's Error shape. parseApiError (upstream/api-error.ts)
 * turns a body without {code, message} into the code `http_<status>`; the service's own codes are
 * application words (not_found, unauthorized, …).
 */
export function lacksErrorShape(a: RouteAnswer): boolean {
  return a.status >= 400 && a.status < 500 && a.error.code === `http_${a.status}`;
}

/** The answer with request paths and the probed names blanked, for comparing two routes' answers. */
function shapeOf(a: RouteAnswer, names: readonly string[]): string {
  let m = a.error.message;
  for (const n of names) if (n !== '') m = m.split(n).join('<name>');
  return `${a.status} ${a.error.code} ${m.replace(/\S*\/\S*/g, '<path>')}`;
}

/** True when the known route answered like the route that cannot exist: the base path is wrong. */
export function answersLikeNoRoute(known: RouteAnswer, noRoute: RouteAnswer, names: readonly string[]): boolean {
  return known.status === 404 && noRoute.status === 404 && shapeOf(known, names) === shapeOf(noRoute, names);
}

/** The verdict on a 4xx from `route` at `where` that lacks the service's Error shape (check and tail say it alike). */
export function notTheServiceText(where: string, route: string, a: RouteAnswer): string {
  return `this is not the session service: ${where} answered ${route} with ${a.status} without the service's Error shape {code, message} (${a.error.message.replace(/\s+/g, ' ').slice(0, 120)}); BROWSER_API_URL must be the session service's API root`;
}

/** The verdict on a known route that answered like a route that cannot exist. */
export function wrongBasePathText(where: string, route: string, a: RouteAnswer): string {
  return `wrong base path: at ${where}, ${route} answers like a route that does not exist (${describeApiError(a.status, a.error)}); BROWSER_API_URL must be the API root that /browsers/{id}/telemetry/stream hangs off`;
}
