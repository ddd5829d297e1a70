-- @name record_pending
-- @description At the end of an ingest, its spans written (ingest.ts, in one transaction): the files read are recorded as read (those not looked at again), their skipped lines replace those they had, and what pruned days a file's spans fell on is counted in its skipped lines; then pending_files and pending_skipped are emptied.
-- @returns nothing; deletes from and inserts into skipped_lines, inserts or replaces rows of ingested_files
DELETE FROM skipped_lines WHERE file IN (SELECT path FROM pending_files);
INSERT INTO skipped_lines SELECT file, line, reason FROM pending_skipped ORDER BY rowid;
INSERT OR REPLACE INTO ingested_files
SELECT p.path, p.size, p.mtime_ms, p.spans, coalesce(s.n, 0), now()::TIMESTAMP
FROM pending_files AS p LEFT JOIN (SELECT file, count(*) AS n FROM pending_skipped GROUP BY file) AS s ON s.file = p.path
WHERE NOT p.again;
DELETE FROM pending_files;
DELETE FROM pending_skipped;
