import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dockerfileEntrypointFlags, dockerfileNodeOptions } from '../../../bench/image-node-options.js';

describe('dockerfileNodeOptions', () => {
  it.each([
    ['none', 'FROM node AS build\nRUN true\nFROM node AS daemon\nENV NODE_ENV=production\n', ''],
    ['plain', 'FROM node AS daemon\nENV NODE_ENV=production \\\n    NODE_OPTIONS=--a=1 \\\n    X=y\n', '--a=1'],
    ['quoted', 'FROM node AS daemon\nENV NODE_OPTIONS="--a=1 --b"\n', '--a=1 --b'],
    ['an earlier stage only', 'FROM node AS build\nENV NODE_OPTIONS=--a\nFROM node AS daemon\nENV X=y\n', ''],
    [
      'the last stage wins',
      'FROM node AS build\nENV NODE_OPTIONS=--a\nFROM node AS daemon\nENV NODE_OPTIONS=--b\n',
      '--b',
    ],
    ['a comment naming it', 'FROM node AS daemon\n# e.g. NODE_OPTIONS=--x\nENV X=y\n', ''],
    ['a stage built FROM its own name', 'FROM daemon AS daemon\nENV X=y\n', ''],
    [
      'inherited from the base stage',
      'FROM node AS daemon\nENV NODE_OPTIONS=--a\nFROM daemon AS runtime\nUSER x\n',
      '--a',
    ],
    [
      'a base image of that name is no stage',
      'FROM node AS daemon\nENV NODE_OPTIONS=--a\nFROM node AS runtime\nUSER x\n',
      '',
    ],
  ])('%s', (_name, dockerfile, expected) => {
    expect(dockerfileNodeOptions(dockerfile)).toBe(expected);
  });

  it("reads the image's own: the benchmark runs the bridge with the young generation the image gives it", () => {
    const dockerfile = readFileSync(new URL('../../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfileNodeOptions(dockerfile)).toBe('--max-semi-space-size=8');
  });
});

describe('dockerfileEntrypointFlags', () => {
  it.each([
    ['none', 'FROM node AS daemon\nENV X=y\n', []],
    ['node without flags', 'FROM node AS daemon\nENTRYPOINT ["node", "bundle/main.js"]\n', []],
    [
      'flags before the script, not after it',
      'FROM node AS daemon\nENTRYPOINT ["node", "--a=1", "--b", "bundle/main.js", "--c"]\n',
      ['--a=1', '--b'],
    ],
    ['not node', 'FROM node AS daemon\nENTRYPOINT ["tini", "--", "node"]\n', []],
    [
      "a stage's last one holds",
      'FROM node AS daemon\nENTRYPOINT ["node", "--a", "x.js"]\nENTRYPOINT ["node", "--b", "x.js"]\n',
      ['--b'],
    ],
    [
      'inherited from the base stage',
      'FROM node AS daemon\nENTRYPOINT ["node", "--a", "x.js"]\nFROM daemon AS runtime\nUSER x\n',
      ['--a'],
    ],
    [
      'a comment naming one',
      'FROM node AS daemon\n# ENTRYPOINT ["node", "--a", "x.js"]\nENTRYPOINT ["node", "x.js"]\n',
      [],
    ],
  ])('%s', (_name, dockerfile, expected) => {
    expect(dockerfileEntrypointFlags(dockerfile)).toEqual(expected);
  });

  it("reads the image's own: the benchmark runs the bridge with the heap growth the image gives it", () => {
    const dockerfile = readFileSync(new URL('../../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfileEntrypointFlags(dockerfile)).toEqual(['--heap-growing-percent=300']);
  });
});
