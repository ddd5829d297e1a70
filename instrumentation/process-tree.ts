import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';

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

export async function readStat(pid: number): Promise<(ProcStat & { comm: string }) | undefined> {
  try {
    return parseStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The basename of a command line's first word (`/proc/<pid>/cmdline` is NUL-separated), else `fallback`. */
export function firstWord(cmdline: string, fallback: string): string {
  const first = cmdline.split('\0')[0]?.trim() ?? '';
  // A process that rewrote its title (`process.title`) may put its arguments in the first field, space-separated.
  const word = first.split(/\s+/)[0] ?? '';
  return word === '' ? fallback : path.basename(word);
}

async function executableOf(pid: number, comm: string): Promise<string> {
  try {
    return firstWord(await readFile(`/proc/${pid}/cmdline`, 'utf8'), comm);
  } catch {
    return comm;
  }
}

/** Whether the process `p` names (pid and start time) is still alive (a zombie, dead but not reaped, is not). */
export async function stillAlive(p: ProcStat): Promise<boolean> {
  try {
    const text = await readFile(`/proc/${p.pid}/stat`, 'utf8');
    const stat = parseStat(text);
    const state = text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3);
    return stat !== undefined && stat.startTime === p.startTime && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function inBatches<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL) out.push(...(await Promise.all(items.slice(i, i + PARALLEL).map(fn))));
  return out;
}

/** Every process under `roots` (not the roots themselves), found by walking each process's parent pid. */
export async function descendantsOf(roots: readonly number[]): Promise<TreeProcess[]> {
  if (!procAvailable() || roots.length === 0) return [];
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const pids = entries
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .slice(0, MAX_PROCS);
  const stats = (await inBatches(pids, readStat)).filter((s) => s !== undefined);
  const children = new Map<number, (ProcStat & { comm: string })[]>();
  for (const s of stats) {
    const list = children.get(s.ppid);
    if (list === undefined) children.set(s.ppid, [s]);
    else list.push(s);
  }
  const found: (ProcStat & { comm: string })[] = [];
  const seen = new Set<number>(roots);
  const queue = [...roots];
  while (queue.length > 0 && found.length < MAX_DESCENDANTS) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      if (seen.has(child.pid) || found.length >= MAX_DESCENDANTS) continue;
      seen.add(child.pid);
      found.push(child);
      queue.push(child.pid);
    }
  }
  return inBatches(found, async (s) => ({ pid: s.pid, ppid: s.ppid, startTime: s.startTime, executable: await executableOf(s.pid, s.comm) }));
}

/** The environment variable every process a run's spawn started carries (and its descendants inherit): the run's id. */
export const RUN_MARK_VARIABLE = 'AFTERSTOP_RUN_ID';

/**
 * The processes whose environment carries `AFTERSTOP_RUN_ID=<runId>` (not this process): every descendant of a
 * run's spawns that kept its environment, even one its parent left behind (reparented, out of any ppid walk: a
 * `sleep 30 &` in a shell that returned). Only the user's own processes' environments can be read.
 */
export async function markedProcesses(runId: string): Promise<TreeProcess[]> {
  if (!procAvailable()) return [];
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const mark = `${RUN_MARK_VARIABLE}=${runId}`;
  const pids = entries
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => pid !== process.pid)
    .slice(0, MAX_PROCS);
  const marked = (
    await inBatches(pids, async (pid) => {
      try {
        const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
        return environ.startsWith(`${mark}\0`) || environ.includes(`\0${mark}\0`) || environ.endsWith(`\0${mark}`) || environ === mark ? pid : undefined;
      } catch {
        return undefined;
      }
    })
  ).filter((pid) => pid !== undefined);
  const found = await inBatches(marked.slice(0, MAX_DESCENDANTS), async (pid) => {
    const stat = await readStat(pid);
    return stat === undefined ? undefined : { pid, ppid: stat.ppid, startTime: stat.startTime, executable: await executableOf(pid, stat.comm) };
  });
  return found.filter((p) => p !== undefined);
}
