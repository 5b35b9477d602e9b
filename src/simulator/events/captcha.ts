// captcha_solve_result (captcha category): exactly one terminal outcome per solve attempt
// (spec: States → Captcha solve outcome).
import type { GenResult, GenState } from './context.js';

const TYPES = ['hcaptcha', 'recaptcha_v2', 'recaptcha_v3', 'turnstile', 'geetest', 'other'];
const STATUSES = ['success', 'success', 'success', 'failure', 'timeout', 'abandoned'];

export function captchaSolveResult(g: GenState): GenResult {
  const { rng } = g;
  const status = rng.pick(STATUSES);
  const site = new URL(g.page.url);
  const data: Record<string, unknown> = {
    captcha_type: rng.pick(TYPES),
    status,
    duration_ms: rng.float(800, 45000, 1),
    task_id: `task_${rng.hex(24)}`,
    website_host: site.hostname,
    website_path: site.pathname, // query string excluded
  };
  // error_code: absent on success.
  if (status === 'failure') data.error_code = rng.pick(['ERROR_CAPTCHA_UNSOLVABLE', 'ERROR_WRONG_SITEKEY', 'ERROR_ZERO_BALANCE']);
  return { data, source: { kind: 'captcha_solver', event: 'solve_finished' } };
}
