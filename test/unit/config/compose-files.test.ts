// The compose files never ship a control token: a default such as `change-me` is a password every
// reader of the repository knows, on a control API that listens beyond loopback in the image. They
// require it instead (`${VAR:?message}` makes `docker compose` stop with the message when unset).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const DIR = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../config/docker-compose');
const composeFiles = readdirSync(DIR).filter(
  (f) =>
    f.endsWith('.yaml') && (parse(readFileSync(join(DIR, f), 'utf8')) as { services?: unknown }).services !== undefined,
);

describe.each(composeFiles)('%s', (file) => {
  const text = readFileSync(join(DIR, file), 'utf8');
  const services = (
    parse(text) as { services: Record<string, { image?: string; environment?: Record<string, string> }> }
  ).services;
  const bridges = Object.entries(services).filter(([, s]) => s.environment?.BROWSER_API_URL !== undefined);

  it('has a bridge service', () => {
    expect(bridges.length).toBeGreaterThan(0);
  });

  it.each(bridges.map(([name]) => name))('%s requires BRIDGE_CONTROL_TOKEN, with no default', (name) => {
    const value = services[name]!.environment!.BRIDGE_CONTROL_TOKEN;
    expect(value).toMatch(/^\$\{BRIDGE_CONTROL_TOKEN:\?[^}]+\}$/);
  });

  it('names no well-known token anywhere', () => {
    expect(text).not.toMatch(/change-me/i);
  });
});
