// Table-driven mapping cases: at least one per row of docs/mapping.md (event types and the
// unknown-type rule `*`; every cdp_command method is cdp-cases.ts). docs-agreement.test.ts checks
// the rows and these cases cover each other; mapping-table.test.ts runs them. The cases live by
// event category in cases/, with what they share in cases/kit.ts.
import type { MappingCase } from './cases/kit.js';
import { CONSOLE_CASES } from './cases/console.js';
import { NETWORK_CASES } from './cases/network.js';
import { PAGE_CASES } from './cases/page.js';
import { SESSION_CASES } from './cases/session.js';
import { SERVICE_CASES } from './cases/service.js';

export type { MappingCase } from './cases/kit.js';

export const TYPE_CASES: MappingCase[] = [
  ...CONSOLE_CASES,
  ...NETWORK_CASES,
  ...PAGE_CASES,
  ...SESSION_CASES,
  ...SERVICE_CASES,
];
