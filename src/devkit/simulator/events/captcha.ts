// The captcha category, as the service sends it: a visible challenge (challenge_id) may need several
// solver tasks (task_id); each task has a captcha_solve_started and exactly one terminal
// captcha_solve_result, and the challenge ends with one captcha_challenge_result (solved / failure
// / timeout / abandoned). Generation keeps one challenge open per session so the ids correlate.
import type { GenResult, GenState } from './context.js';

const TYPES = ['hcaptcha', 'recaptcha_v2', 'recaptcha_v3', 'turnstile', 'geetest', 'press_and_hold', 'other'];
const TASK_STATUSES = ['success', 'success', 'success', 'failure', 'timeout', 'abandoned'];
const CHALLENGE_STATUSES = ['solved', 'solved', 'solved', 'failure', 'timeout', 'abandoned'];

interface Challenge {
  id: string;
  type: string;
  taskId: string;
  openedAt: number;
}

const open = new WeakMap<GenState, Challenge>();

function site(g: GenState): { website_host: string; website_path: string } {
  const url = new URL(g.page.url);
  return { website_host: url.hostname, website_path: url.pathname }; // query string excluded
}

function challenge(g: GenState): Challenge {
  let c = open.get(g);
  if (c === undefined) {
    c = { id: `ch_${g.rng.hex(16)}`, type: g.rng.pick(TYPES), taskId: `task_${g.rng.hex(24)}`, openedAt: Date.now() };
    open.set(g, c);
  }
  return c;
}

/** captcha_solve_started: a solver accepted a task of the open challenge. */
export function captchaSolveStarted(g: GenState): GenResult {
  const c = challenge(g);
  c.taskId = `task_${g.rng.hex(24)}`;
  return {
    data: { captcha_type: c.type, challenge_id: c.id, task_id: c.taskId, ...site(g) },
    source: { kind: 'extension', event: 'captcha_solve_started' },
  };
}

/** captcha_solve_result: the terminal outcome of the current task. */
export function captchaSolveResult(g: GenState): GenResult {
  const { rng } = g;
  const c = challenge(g);
  const status = rng.pick(TASK_STATUSES);
  const data: Record<string, unknown> = {
    captcha_type: c.type,
    status,
    duration_ms: rng.float(800, 45000, 1),
    task_id: c.taskId,
    challenge_id: c.id,
    ...site(g),
  };
  // error_code: absent on success.
  if (status === 'failure')
    data.error_code = rng.pick(['ERROR_CAPTCHA_UNSOLVABLE', 'ERROR_WRONG_SITEKEY', 'ERROR_ZERO_BALANCE']);
  return { data, source: { kind: 'extension', event: 'captcha_solve_result' } };
}

/**
 * captcha_challenge_result: the challenge's one outcome. Observed ones carry challenge_id; for
 * providers without a widget observer the service infers a solved result from a successful token
 * task instead (task_id, `inferred: true`, source kernel_api).
 */
export function captchaChallengeResult(g: GenState): GenResult {
  const { rng } = g;
  const c = challenge(g);
  open.delete(g);
  const duration = Math.max(1, Date.now() - c.openedAt) + rng.float(500, 30000, 1);
  if (rng.chance(0.2)) {
    return {
      data: {
        captcha_type: c.type,
        status: 'solved',
        duration_ms: duration,
        inferred: true,
        task_id: c.taskId,
        ...site(g),
      },
      source: { kind: 'kernel_api', event: 'captcha_challenge_result' },
    };
  }
  return {
    data: {
      captcha_type: c.type,
      challenge_id: c.id,
      status: rng.pick(CHALLENGE_STATUSES),
      duration_ms: duration,
      ...site(g),
    },
    source: { kind: 'extension', event: 'captcha_challenge_result' },
  };
}
