// api_call (control category): an agent-driven call to the in-VM API that drives the browser
// (docs/service-api.md "Event types and categories"). VM-management calls are platform_api_call (unlisted.ts).
import type { GenResult, GenState } from './context.js';

const OPERATIONS = [
  'click_mouse',
  'type_text',
  'press_key',
  'take_screenshot',
  'move_mouse',
  'scroll',
  'batch_computer_actions',
  'execute_playwright_code',
];
const CODE_SNIPPETS = [
  "await page.goto('https://example.com');\nreturn await page.title();",
  "await page.fill('#password', 'hunter2-🔑');\nawait page.click('button[type=submit]');",
  'const rows = await page.$$eval("tr", (r) => r.length);\nreturn { rows };',
];

export function apiCall(g: GenState): GenResult {
  const { rng } = g;
  const operation = rng.pick(OPERATIONS);
  const status = rng.pick([200, 200, 200, 200, 400, 404, 500, 504]);
  const data: Record<string, unknown> = {
    request_id: `req_${rng.hex(20)}`,
    operation_id: operation,
    status,
    duration_ms: rng.float(2, 4000, 3),
  };
  // code: only for the code-execution operation, absent for every other one.
  if (operation === 'execute_playwright_code') data.code = rng.pick(CODE_SNIPPETS);
  return { data, source: { kind: 'api', event: operation, metadata: { http_method: 'POST' } } };
}
