import * as path from 'node:path';
import { benchLargeInputs } from '../large-inputs.js';
import { ratioRow, valueRow } from '../results.js';
import { count as spans, type Section } from './section.js';

/** Inputs that grow in one direction (bench/large-inputs.ts): each at a small and a large size. */
export const LARGE_INPUT_SECTIONS: Section[] = [
  {
    name: 'large-inputs',
    run({ work, rows, details, progress }) {
      progress('large inputs: explain of a long run, many files, a long line');
      const large = benchLargeInputs(path.join(work, 'large-inputs'));
      details['largeInputs'] = large;
      const [fewCalls, manyCalls] = [large.explain[0], large.explain[large.explain.length - 1]];
      if (fewCalls !== undefined && manyCalls !== undefined && manyCalls !== fewCalls) {
        const scale = manyCalls.calls / fewCalls.calls;
        rows.push(
          ratioRow(
            {
              id: `explain-${manyCalls.calls}-calls`,
              work: `afterstop explain --format html, one run of ${spans(manyCalls.calls)} tool calls (linear: ${scale.toFixed(0)}× the ${spans(fewCalls.calls)})`,
              value: manyCalls.measured.seconds,
              unit: 's',
              baseline: `the same, ${spans(fewCalls.calls)} calls`,
              baselineValue: fewCalls.measured.seconds,
              peakRssMb: manyCalls.measured.peakRssMb,
            },
            scale * 1.5,
          ),
          ratioRow(
            {
              id: `explain-${manyCalls.calls}-calls-memory`,
              work: "the same explain: peak memory (a run's rows typed as they stream from DuckDB: one copy of them held)",
              value: manyCalls.measured.peakRssMb,
              unit: 'MB',
              baseline: 'afterstop ingest of the same run, into the store explain reads',
              baselineValue: manyCalls.ingested.peakRssMb,
              peakRssMb: manyCalls.measured.peakRssMb,
            },
            1.5,
          ),
        );
      }
      if (manyCalls?.queried !== undefined) {
        rows.push(
          ratioRow(
            {
              id: `query-run-timeline-${manyCalls.calls}-calls-memory`,
              work: 'afterstop query run-timeline --format json of the same run: peak memory (the rows printed as DuckDB reads them, a chunk held at a time)',
              value: manyCalls.queried.peakRssMb,
              unit: 'MB',
              baseline: 'afterstop ingest of the same run, into the store the query reads',
              baselineValue: manyCalls.ingested.peakRssMb,
              peakRssMb: manyCalls.queried.peakRssMb,
            },
            1.5,
          ),
        );
      }
      const [fewFiles, manyFilesRow] = [large.manyFiles[0], large.manyFiles[large.manyFiles.length - 1]];
      if (fewFiles !== undefined && manyFilesRow !== undefined && manyFilesRow !== fewFiles) {
        rows.push(
          ratioRow(
            {
              id: `many-files-${manyFilesRow.files}-memory`,
              work: `leak-report, ${spans(manyFilesRow.files)} one-span files: peak memory (the cost per file bounded: about that of the same spans in one file)`,
              value: manyFilesRow.measured.peakRssMb,
              unit: 'MB',
              baseline: `the same ${spans(large.oneFile.spans)} spans in one file`,
              baselineValue: large.oneFile.measured.peakRssMb,
              peakRssMb: manyFilesRow.measured.peakRssMb,
            },
            1.5,
          ),
        );
        rows.push(
          ratioRow(
            {
              id: `many-files-${manyFilesRow.files}-memory-growth`,
              work: `the same, against ${spans(fewFiles.files)} files (the spans' own cost grows with them)`,
              value: manyFilesRow.measured.peakRssMb,
              unit: 'MB',
              baseline: `${spans(fewFiles.files)} files`,
              baselineValue: fewFiles.measured.peakRssMb,
              peakRssMb: null,
            },
            null,
          ),
        );
        rows.push(
          ratioRow(
            {
              id: `many-files-${manyFilesRow.files}-time`,
              work: `leak-report, ${spans(manyFilesRow.files)} one-span files: time (linear: ${(manyFilesRow.files / fewFiles.files).toFixed(0)}×)`,
              value: manyFilesRow.measured.seconds,
              unit: 's',
              baseline: `the same, ${spans(fewFiles.files)} files`,
              baselineValue: fewFiles.measured.seconds,
              peakRssMb: null,
            },
            null,
          ),
        );
      }
      rows.push(
        valueRow(
          {
            id: `long-line-${large.longLine.mb}mib`,
            work: `leak-report over a file with a line of ${large.longLine.mb} MiB among valid ones: the line named and skipped, the rest reported (exit 0)`,
            value: large.longLine.measured.peakRssMb,
            unit: 'MB',
            baseline: 'none',
            baselineValue: null,
            peakRssMb: large.longLine.measured.peakRssMb,
          },
          { text: 'exit 0, < 1024 MB', met: (v) => large.longLine.measured.status === 0 && v < 1024 },
        ),
      );
    },
  },
];
