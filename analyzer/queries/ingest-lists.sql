-- @name ingest_lists
-- @description At the start of an ingest (ingest.ts): the temporary tables that hold, for a listing of any size, what would otherwise be held in memory per file: the trace files the inputs name (input_files: the report's skipped lines are theirs), and what each file read gave until it is recorded with the spans written (pending_files, pending_skipped; record-pending.sql).
-- @returns nothing; creates the temporary tables input_files, pending_files and pending_skipped
CREATE OR REPLACE TEMP TABLE input_files (path VARCHAR);
CREATE OR REPLACE TEMP TABLE pending_files (path VARCHAR, size BIGINT, mtime_ms DOUBLE, spans BIGINT, again BOOLEAN);
CREATE OR REPLACE TEMP TABLE pending_skipped (file VARCHAR, line BIGINT, reason VARCHAR);
