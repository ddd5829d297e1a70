import * as fs from 'node:fs';
import { InputError } from './errors.js';

/**
 * A small text file the analyzer reads whole (a price table, a Tempo block's meta.json): only a regular
 * file, and at most `maxBytes` of it, so that a FIFO cannot block the job forever and `/dev/zero` cannot
 * fill the memory. Opened without blocking (a FIFO with no writer would block `open` itself).
 */
export function readSmallFile(file: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    throw new InputError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { path: file });
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new InputError(`${file}: not a regular file (a pipe, socket or device is not read)`, { path: file });
    if (stat.size > maxBytes) throw new InputError(`${file}: ${stat.size} bytes, more than the ${maxBytes} such a file may have`, { path: file });
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = fs.readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.toString('utf8', 0, read);
  } finally {
    fs.closeSync(fd);
  }
}
