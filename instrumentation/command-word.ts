/**
 * The first word of a command line, its basename: what afterstop records of a command (a spawned process, a
 * process of a run's tree, an MCP server started over stdio), never its arguments, which may hold secrets.
 * Undefined when there is no word.
 */
export function commandWord(command: unknown): string | undefined {
  if (typeof command !== 'string') return undefined;
  const first = command.trim().split(/\s+/)[0] ?? '';
  const base = first.slice(Math.max(first.lastIndexOf('/'), first.lastIndexOf('\\')) + 1);
  return base === '' ? undefined : base;
}
