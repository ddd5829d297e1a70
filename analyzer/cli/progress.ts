/**
 * Progress on stderr for long work. On a terminal: one line redrawn in place,
 * with a bar while DuckDB can tell how far it is. Elsewhere (a log file, CI):
 * each new message once, no bar. Never on stdout, which carries the report.
 */
export interface Progress {
  update(message: string, percentage?: number): void;
  /** Clear the line (on a terminal), before anything else is printed. */
  done(): void;
}

export function stderrProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) {
    let last = '';
    return {
      update(message) {
        if (message !== '' && message !== last) stream.write(`afterstop: ${message}\n`);
        last = message;
      },
      done() {},
    };
  }
  let drawn = false;
  return {
    update(message, percentage) {
      const width = 24;
      const bar = percentage === undefined ? '' : `[${'#'.repeat(Math.round((percentage / 100) * width)).padEnd(width, '-')}] ${percentage.toFixed(0).padStart(3)}% `;
      const line = `afterstop: ${bar}${message}`.slice(0, Math.max(20, (stream.columns ?? 80) - 1));
      stream.write(`\r\x1b[2K${line}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
}

/** No progress at all (--no-progress). */
export const silentProgress: Progress = { update() {}, done() {} };
