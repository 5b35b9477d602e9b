// The readable summary `pool` prints: identity, capacity, telemetry configuration and what it means
// for the bridge (the findings the pool resolver logs). Pure: the pool in, lines out.
import { enabledCategories, poolFindings, TELEMETRY_CATEGORIES, type BrowserPool } from '../upstream/browser-pool.js';
import { CATEGORIES } from '../vocabulary/event-types.js';
import type { Paint } from './ansi.js';

const yesNo = (v: boolean | undefined): string => (v === undefined ? '?' : v ? 'yes' : 'no');
const n = (v: number | undefined): string => (v === undefined ? '?' : String(v));

export function formatPoolSummary(pool: BrowserPool, p: Paint): string {
  const rows: Array<[string, string]> = [];
  rows.push([
    'Pool',
    pool.name !== undefined && pool.name !== pool.id ? `${p.bold(pool.name)} (${pool.id})` : p.bold(pool.id),
  ]);
  rows.push(['Region', pool.region ?? '?']);
  if (pool.createdAt) rows.push(['Created', pool.createdAt]);
  rows.push([
    'Browsers',
    `size ${n(pool.size)} · acquired ${n(pool.acquiredCount)} · available ${n(pool.availableCount)}`,
  ]);

  const t = pool.telemetry;
  if (!t) {
    rows.push(['Telemetry', p.dim('no telemetry configuration shown')]);
  } else {
    if (t.hasBrowserSection) {
      const on = enabledCategories(t);
      const off = TELEMETRY_CATEGORIES.filter((c) => t.categories[c] === false);
      const unset = TELEMETRY_CATEGORIES.filter((c) => t.categories[c] === undefined);
      rows.push(['Telemetry on', on.length > 0 ? p.green(on.join(', ')) : p.yellow('none')]);
      rows.push(['Telemetry off', off.length > 0 ? off.join(', ') : 'none']);
      if (unset.length > 0) rows.push(['Not stated', unset.join(', ')]);
      // The eleventh category the configuration's filters know: the service sends it with no flag.
      rows.push([
        'Always sent',
        CATEGORIES.filter((c) => !(TELEMETRY_CATEGORIES as readonly string[]).includes(c)).join(', ') +
          p.dim(' (no flag in a pool)'),
      ]);
    } else {
      rows.push(['Telemetry', p.dim('no per-category configuration shown')]);
    }
    rows.push(['CDP excluded', t.excludedCdpMethods.length > 0 ? t.excludedCdpMethods.join(', ') : 'none']);
    const exp = t.otlpExport;
    const dest = exp.destination ? ` (destination ${exp.destination})` : '';
    rows.push([
      'OTLP export',
      exp.enabled === true ? p.yellow(`on${dest}`) : exp.enabled === false ? `off${dest}` : '?',
    ]);
  }

  const profile = pool.profileId ?? pool.profile?.id;
  const profileName = pool.profile?.name;
  rows.push([
    'Profile',
    profile === undefined && profileName === undefined
      ? 'none'
      : [profile, profileName && `(${profileName})`].filter(Boolean).join(' '),
  ]);
  const extensions =
    pool.extensionIds.length > 0
      ? pool.extensionIds.join(', ')
      : pool.extensions.map((e) => e.name ?? e.id ?? '?').join(', ');
  rows.push(['Extensions', extensions || 'none']);
  const vp = pool.viewport;
  const viewport = vp
    ? `${n(vp.width)}×${n(vp.height)}${vp.refreshRate !== undefined ? ` @${vp.refreshRate} Hz` : ''}`
    : '?';
  rows.push([
    'Browser',
    `headless ${yesNo(pool.headless)} · stealth ${yesNo(pool.stealth)} · kiosk ${yesNo(pool.kioskMode)} · viewport ${viewport} · timeout ${pool.timeoutSeconds !== undefined ? `${pool.timeoutSeconds} s` : '?'}`,
  ]);

  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${p.dim(k.padEnd(width))}  ${v}`);
  const findings = poolFindings(pool).filter((f) => f.level === 'warn');
  if (findings.length > 0) lines.push('', ...findings.map((f) => p.yellow(`⚠ ${f.message}`)));
  if (pool.ignored.length > 0) lines.push('', p.dim(`ignored (unexpected type): ${pool.ignored.join(', ')}`));
  return lines.join('\n');
}
