/**
 * The docs' bench table from a bench's JSON: `jsonFile` is copied beside
 * `docFile` (docs/benchmarks.md: docs/benchmarks.json), and the table between
 * the doc's bench markers is rendered from that copy, so the figures there
 * are that file's. `npm run bench -- --doc FILE` calls it after a run;
 * `node dist/bench/write-doc.js JSON DOC` renders an earlier run's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withResults, type BenchResults } from './results.js';

export function writeDoc(jsonFile: string, docFile: string): void {
  const docJson = docFile.replace(/\.md$/, '.json');
  if (path.resolve(jsonFile) !== path.resolve(docJson)) fs.copyFileSync(jsonFile, docJson);
  const recorded = JSON.parse(fs.readFileSync(docJson, 'utf8')) as BenchResults;
  fs.writeFileSync(docFile, withResults(fs.readFileSync(docFile, 'utf8'), recorded, path.basename(docJson)));
  process.stderr.write(`bench: wrote ${docFile} from ${docJson}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [jsonFile, docFile] = process.argv.slice(2);
  if (jsonFile === undefined || docFile === undefined) {
    process.stderr.write('usage: node dist/bench/write-doc.js BENCH.json DOC.md\n');
    process.exitCode = 2;
  } else {
    writeDoc(jsonFile, docFile);
  }
}
