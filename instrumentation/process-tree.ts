import { readdir, readFile } from 'node:fs/promises';
import { commandWord } from './command-word.js';

/**
 * A process's descendants as Linux's `/proc` shows them, read asynchronously and bounded: the event loop
 * never waits on it, and a machine with many processes costs at most {@link MAX_PROCS} small reads. Other
 * platforms have no `/proc`: there the tree is nothing beyond the direct children the app spawned (the
 * ChildProcess objects process.ts holds). Never throws: a process that went away while it was read, or a
 * `/proc` that cannot be read, is left out.
 */

/** At most this many `/proc/<pid>` entries are read per walk. */
export const MAX_PROCS = 4096;
/** At most this many descendants are kept per walk. */
export const MAX_DESCENDANTS = 256;
/** Reads in flight at once. */
const PARALLEL = 32;

export interface ProcStat {
  pid: number;
  ppid: number;
  /** Field 22 of /proc/<pid>/stat, the start time in clock ticks since boot: with the pid, who the process is (a pid is reused). */
  startTime: string;
}

export interface TreeProcess extends ProcStat {
  /** The basename of the command line's first word (never its arguments); the kernel's `comm` when the command line is empty. */
  executable: string;
}

export const procAvailable = (): boolean => process.platform === 'linux';

/** `/proc/<pid>/stat`: the comm is in parentheses and may hold spaces and parentheses, so the fields after it are read from the last `)`. */
export function parseStat(text: string): (ProcStat & { comm: string }) | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  // After ") ": state (field 3), ppid (4), ..., starttime (22).
  const fields = text
    .slice(close + 2)
    .trim()
    .split(' ');
  const ppid = Number(fields[1]);
  const startTime = fields[19];
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || startTime === undefined) return undefined;
  return { pid, ppid, startTime, comm: text.slice(open + 1, close) };
}

/** The basename of a command line's first word (`/proc/<pid>/cmdline` is NUL-separated), else `fallback`. A process that rewrote its title (`process.title`) may put its arguments in the first field, space-separated: still its first word only. */
export function firstWord(cmdline: string, fallback: string): string {
  return commandWord(cmdline.split('\0')[0]) ?? fallback;
}

async function executableOf(pid: number, comm: string): Promise<string> {
  try {
    return firstWord(await readFile(`/proc/${pid}/cmdline`, 'utf8'), comm);
  } catch {
    return comm;
  }
}

async function inBatches<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL) out.push(...(await Promise.all(items.slice(i, i + PARALLEL).map(fn))));
  return out;
}

/** The environment variable every process a run's spawn started carries (and its descendants inherit): the run's id. */
export const RUN_MARK_VARIABLE = 'AFTERSTOP_RUN_ID';

type Seen = ProcStat & { comm: string; state: string; marked: boolean };

/** One process of `/proc`: its stat (with its state) and whether its environment carries `mark`; undefined when it went away or cannot be read. */
async function readProcess(pid: number, mark: string): Promise<Seen | undefined> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    const stat = parseStat(text);
    if (stat === undefined) return undefined;
    const state = text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3);
    let marked = false;
    try {
      const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
      marked = environ.startsWith(`${mark}\0`) || environ.includes(`\0${mark}\0`) || environ.endsWith(`\0${mark}`) || environ === mark;
    } catch {
      // another user's process: its environment cannot be read, so it carries no mark we can see
    }
    return { ...stat, state, marked };
  } catch {
    return undefined;
  }
}

/** What one read of `/proc` says of a run's processes. */
export interface TreeScan {
  /**
   * Every process under `roots` (not the roots themselves), found by walking each process's parent pid, and
   * every process whose environment carries `AFTERSTOP_RUN_ID=<runId>` (not this process): a descendant of a
   * run's spawns that kept its environment, even one its parent left behind (reparented, out of any ppid walk:
   * a `sleep 30 &` in a shell that returned). Only the user's own processes' environments can be read.
   */
  found: TreeProcess[];
  /** Whether the process `p` names (pid and start time) was alive at this read (a zombie, dead but not reaped, is not). */
  alive(p: ProcStat): boolean;
}

const NOTHING: TreeScan = { found: [], alive: () => false };

/** One walk of `/proc` (one listing, two small reads per process, at most {@link MAX_PROCS}): a run's tree, and who is alive. */
export async function scanTree(roots: readonly number[], runId: string): Promise<TreeScan> {
  if (!procAvailable()) return NOTHING;
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return NOTHING;
  }
  const mark = `${RUN_MARK_VARIABLE}=${runId}`;
  const pids = entries
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => pid !== process.pid)
    .slice(0, MAX_PROCS);
  const seen = (await inBatches(pids, (pid) => readProcess(pid, mark))).filter((s) => s !== undefined);
  const byPid = new Map(seen.map((s) => [s.pid, s]));
  const children = new Map<number, Seen[]>();
  for (const s of seen) {
    const list = children.get(s.ppid);
    if (list === undefined) children.set(s.ppid, [s]);
    else list.push(s);
  }
  const found: Seen[] = [];
  const taken = new Set<number>(roots);
  const take = (s: Seen): void => {
    if (taken.has(s.pid) || found.length >= MAX_DESCENDANTS) return;
    taken.add(s.pid);
    found.push(s);
  };
  const queue = [...roots];
  while (queue.length > 0 && found.length < MAX_DESCENDANTS) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      const before = found.length;
      take(child);
      if (found.length > before) queue.push(child.pid);
    }
  }
  for (const s of seen) if (s.marked) take(s);
  return {
    found: await inBatches(found, async (s) => ({ pid: s.pid, ppid: s.ppid, startTime: s.startTime, executable: await executableOf(s.pid, s.comm) })),
    alive: (p) => {
      const s = byPid.get(p.pid);
      return s !== undefined && s.startTime === p.startTime && s.state !== 'Z' && s.state !== 'X';
    },
  };
}
