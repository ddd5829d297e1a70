// Imported first by the register-startup bench (bench/register-startup.ts): counts the module files the
// process loads (ES modules and CommonJS alike, through Node's synchronous hooks) and, at exit, writes
// their count to stderr as `modules <n>`.
import { registerHooks } from 'node:module';

const files = new Set();
registerHooks({
  load(url, context, nextLoad) {
    if (url.startsWith('file:')) files.add(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => process.stderr.write(`modules ${files.size}\n`));
