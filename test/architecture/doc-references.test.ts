// The repository explains itself (docs/design.md "Conventions"): every document a comment, a test or
// a doc points at is in the repository, and nothing cites the briefing the project was started from.
// This test reads src/, test/, bench/, docs/, config/, README.md and the Dockerfile and fails on
//   - a mention of `docs/<name>.md` or README.md that does not exist (and, for `docs/<name>.md
//     "Section"`, a section that file does not have);
//   - in markdown, a relative link whose file (or `#anchor`) does not exist, and a backticked
//     repository path (`src/…`, `test/…`, …) that does not exist;
//   - any mention of the briefing's documents, which a clone does not have.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SELF = relative(ROOT, fileURLToPath(import.meta.url))
  .split('\\')
  .join('/');

/** Names of documents outside the repository. Spelled in pieces so this file does not mention them. */
const FORBIDDEN: ReadonlyArray<[RegExp, string]> = [
  [new RegExp('\\b' + 'DESIGN' + '\\.md\\b'), 'DESIGN' + '.md'],
  [new RegExp('\\b' + 'CONVENTIONS' + '\\b'), 'CONVENTIONS' + '.md'],
  [new RegExp('\\.\\./' + 'shared'), '../' + 'shared'],
  [new RegExp('browser-session-' + 'service' + '\\.' + 'md'), 'browser-session-' + 'service' + '.' + 'md'],
];

const SCANNED_DIRS = ['src', 'test', 'bench', 'docs', 'config'];
const SCANNED_FILES = ['README.md', 'Dockerfile'];
const TEXT = /\.(ts|js|mjs|md|ya?ml|json)$/;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(p);
    return TEXT.test(e.name) ? [p] : [];
  });
}

/** Every scanned file, repository-relative with `/` separators. */
function scannedFiles(): string[] {
  const files = SCANNED_DIRS.filter((d) => existsSync(join(ROOT, d))).flatMap((d) => walk(join(ROOT, d)));
  files.push(...SCANNED_FILES.map((f) => join(ROOT, f)).filter((f) => existsSync(f)));
  return files.map((f) => relative(ROOT, f).split('\\').join('/'));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Headings of a markdown text, without their `#`s and backticks. */
export function headings(markdown: string): string[] {
  let fence = false;
  const out: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    else if (!fence && /^#{1,6} /.test(line)) out.push(line.replace(/^#+ /, '').replace(/`/g, '').trim());
  }
  return out;
}

/** The anchors a markdown text has, duplicates numbered as GitHub does. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(markdown)) {
    const s = slug(h);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n === 0 ? s : `${s}-${n}`);
  }
  return out;
}

/** What the checker needs to know about the repository. */
export interface Repo {
  /** Whether a repository-relative path exists. */
  exists(path: string): boolean;
  /** The text of a repository-relative markdown file. */
  read(path: string): string;
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** Every bad reference in one file (`file` is repository-relative), as `file:line: problem`. */
export function problems(file: string, text: string, repo: Repo): string[] {
  const out: string[] = [];
  const at = (index: number, problem: string): void => void out.push(`${file}:${lineOf(text, index)}: ${problem}`);

  for (const [re, name] of FORBIDDEN) {
    for (const m of text.matchAll(new RegExp(re.source, 'g')))
      at(m.index, `cites ${name}, which is not in the repository`);
  }

  // docs/<name>.md, optionally followed by a quoted section name on the same line.
  for (const m of text.matchAll(/(?<![\w./-])(docs\/[\w.-]+\.md)(?:#([\w-]+))?(?:,?\s*"([^"\n]+)")?/g)) {
    const [, doc, anchor, section] = m as unknown as [string, string, string | undefined, string | undefined];
    if (!repo.exists(doc)) {
      at(m.index, `${doc} does not exist`);
      continue;
    }
    if (anchor !== undefined && !anchors(repo.read(doc)).has(anchor)) at(m.index, `${doc} has no anchor #${anchor}`);
    if (section !== undefined) {
      const wanted = section.replace(/`/g, '').toLowerCase();
      if (!headings(repo.read(doc)).some((h) => h.toLowerCase().includes(wanted)))
        at(m.index, `${doc} has no section "${section}"`);
    }
  }
  for (const m of text.matchAll(/(?<![\w./-])README\.md\b/g))
    if (!repo.exists('README.md')) at(m.index, 'README.md does not exist');

  if (file.endsWith('.md')) {
    const here = posix.dirname(file);
    // Markdown links to relative targets: [text](path), [text](path#anchor), [text](#anchor).
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [pathPart, anchor] = target.split('#') as [string, string | undefined];
      const path = pathPart === '' ? file : posix.normalize(posix.join(here, pathPart));
      if (path.startsWith('..')) at(m.index, `link ${target} leaves the repository`);
      else if (!repo.exists(path)) at(m.index, `link ${target}: ${path} does not exist`);
      else if (anchor !== undefined && path.endsWith('.md') && !anchors(repo.read(path)).has(anchor))
        at(m.index, `link ${target}: no anchor #${anchor} in ${path}`);
    }
    // Backticked repository paths in prose: `src/wire/encode-record.ts`.
    for (const m of text.matchAll(/`((?:src|test|bench|docs|config)\/[\w./-]+\.(?:ts|md|ya?ml))`/g)) {
      if (!repo.exists(m[1] as string)) at(m.index, `${m[1]} does not exist`);
    }
  }
  return out;
}

const realRepo: Repo = {
  exists: (p) =>
    existsSync(join(ROOT, p)) && (statSync(join(ROOT, p)).isFile() || statSync(join(ROOT, p)).isDirectory()),
  read: (p) => readFileSync(join(ROOT, p), 'utf8'),
};

describe('references to documents', () => {
  const files = scannedFiles();

  it('reads the whole tree', () => {
    // A broken walk would make the test below pass vacuously.
    expect(files.length).toBeGreaterThan(200);
    for (const f of [
      'README.md',
      'Dockerfile',
      'docs/design.md',
      'docs/service-api.md',
      'src/cli/main.ts',
      'config/bridge.example.yaml',
    ])
      expect(files).toContain(f);
  });

  it('point at files, anchors and sections that exist in the repository, and never at the briefing', () => {
    // This file is left out: it spells the briefing's names to forbid them, and its checker's
    // fixtures below are bad references on purpose (written through MD, so other tools skip them).
    const checked = files.filter((f) => f !== SELF);
    expect(checked.length).toBe(files.length - 1);
    expect(checked.flatMap((f) => problems(f, readFileSync(join(ROOT, f), 'utf8'), realRepo))).toEqual([]);
  });
});

describe('the checker itself', () => {
  // Its fixtures name documents that do not exist, on purpose: spelled through MD so that no tool
  // reading the repository for document names (this test's own scan included) takes them for real ones.
  const MD = '.md';
  const repo: Repo = {
    exists: (p) => [`README${MD}`, `docs/a${MD}`, `docs/b${MD}`, 'src/x.ts'].includes(p),
    read: (p) =>
      p === `docs/a${MD}`
        ? '# A\n\n## Delivery semantics\n\n```\n# not a heading\n```\n## Delivery semantics\n'
        : '# B\n',
  };

  it('accepts good references', () => {
    const ts = `// see docs/a${MD} "Delivery semantics" and docs/b${MD}, and README${MD}\n`;
    expect(problems('src/y.ts', ts, repo)).toEqual([]);
    const md = `See [a](a${MD}#delivery-semantics-1), [b](./b${MD}), [top](#b), [x](../src/x.ts), \`src/x.ts\`, [w](https://example.com/z${MD}).\n`;
    expect(problems(`docs/b${MD}`, md, repo)).toEqual([]);
  });

  it('catches a missing document, a missing section, a broken link or anchor, a missing path and the briefing', () => {
    const ts = [
      `// docs/nope${MD}`,
      `// docs/a${MD} "No such section"`,
      `// docs/a${MD}#not-here`,
      '// see ' + 'DESIGN' + `${MD} and ` + 'CONVENTIONS' + ' 11',
      `// ${'../' + 'shared'}/spec/${'browser-session-' + 'service'}${MD}`,
    ].join('\n');
    expect(problems('src/y.ts', ts, repo)).toEqual([
      `src/y.ts:4: cites ${'DESIGN' + `${MD}`}, which is not in the repository`,
      `src/y.ts:4: cites ${'CONVENTIONS' + `${MD}`}, which is not in the repository`,
      `src/y.ts:5: cites ${'../' + 'shared'}, which is not in the repository`,
      `src/y.ts:5: cites ${'browser-session-' + `service${MD}`}, which is not in the repository`,
      `src/y.ts:1: docs/nope${MD} does not exist`,
      `src/y.ts:2: docs/a${MD} has no section "No such section"`,
      `src/y.ts:3: docs/a${MD} has no anchor #not-here`,
    ]);
    const md = `[gone](gone${MD})\n[anchor](a${MD}#nowhere)\n[out](../../etc/passwd)\n\`src/old/place.ts\`\n`;
    expect(problems(`docs/b${MD}`, md, repo)).toEqual([
      `docs/b${MD}:1: link gone${MD}: docs/gone${MD} does not exist`,
      `docs/b${MD}:2: link a${MD}#nowhere: no anchor #nowhere in docs/a${MD}`,
      `docs/b${MD}:3: link ../../etc/passwd leaves the repository`,
      `docs/b${MD}:4: src/old/place.ts does not exist`,
    ]);
  });

  it('makes anchors as GitHub does', () => {
    expect(slug('Configuration (`mapping:` section)'.replace(/`/g, ''))).toBe('configuration-mapping-section');
    expect(slug('Several replicas, one PostgreSQL')).toBe('several-replicas-one-postgresql');
    expect([...anchors('# T\n## Same\n## Same\n')]).toEqual(['t', 'same', 'same-1']);
  });
});
