// Which process of the machine is which: perf names a sample's process only by its pid and its
// thread's name (every node process's main thread is "MainThread"), so the tool reads the benchmark's
// process tree from /proc while the recording runs and gives each pid a role. Every pid outside that
// tree is a neighbour ("other"): the machine is shared, and what the neighbours burn is in the report
// because it slows the bridge.
import { readdirSync, readFileSync } from 'node:fs';

export const ROLES = ['bridge', 'simulator', 'sink', 'ceiling', 'harness', 'other', 'idle'] as const;
export type Role = (typeof ROLES)[number];

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The command line's words. */
  argv: string[];
}

const SCRIPT_ROLES: Array<[RegExp, Role]> = [
  [/(?:^|\/)src\/devkit\/simulator\/main\.[jt]s$/, 'simulator'],
  [/(?:^|\/)bench\/sink\.[jt]s$/, 'sink'],
  [/(?:^|\/)bench\/ceiling\.[jt]s$/, 'ceiling'],
  // The bridge as its own process (the sidecar scenario): the CLI's `run`, compiled or bundled.
  [/(?:^|\/)(?:src\/cli\/main\.[jt]s|cli\/main\.js|bundle\/main\.js)$/, 'bridge'],
];

/**
 * Roles of the processes under `root` (this tool: it starts the benchmark runner and perf). The
 * runner runs each scenario in a child process of its own (bench/throughput.ts started by itself),
 * and the in-process scenarios run the bridge there: that process is the bridge unless the tree holds
 * a bridge process of its own (the sidecar), and then it is harness like the runner, perf and
 * everything else in the tree (tsx's esbuild). Processes outside the tree are not in the map.
 */
export function classifyProcesses(processes: readonly ProcessInfo[], root: number): Map<number, Role> {
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  const children = new Map<number, ProcessInfo[]>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const tree: ProcessInfo[] = [];
  const walk = (p: ProcessInfo): void => {
    tree.push(p);
    for (const child of children.get(p.pid) ?? []) walk(child);
  };
  const top = byPid.get(root);
  if (top) walk(top);

  const roles = new Map<number, Role>();
  for (const p of tree) roles.set(p.pid, scriptRole(p.argv) ?? 'harness');
  if (![...roles.values()].includes('bridge'))
    for (const p of tree) {
      const parent = byPid.get(p.ppid);
      if (parent && runsThroughput(p) && runsThroughput(parent)) roles.set(p.pid, 'bridge');
    }
  return roles;
}

const runsThroughput = (p: ProcessInfo): boolean => p.argv.some((a) => /(?:^|\/)bench\/throughput\.[jt]s$/.test(a));

function scriptRole(argv: readonly string[]): Role | null {
  for (const arg of argv) for (const [re, role] of SCRIPT_ROLES) if (re.test(arg)) return role;
  return null;
}

/** The role of a sample's pid: from the map, idle for the kernel's idle tasks, else a neighbour. */
export function roleOf(roles: ReadonlyMap<number, Role>, pid: number): Role {
  return roles.get(pid) ?? (pid === 0 ? 'idle' : 'other');
}

/** Every process of the machine now, from /proc (Linux). Processes that end while it reads are skipped. */
export function readProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces and parentheses): state, then ppid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      out.push({ pid: Number(entry), ppid, argv });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat; null once it is gone. */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in USER_HZ (100 a second on every Linux this runs on).
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return null;
  }
}
