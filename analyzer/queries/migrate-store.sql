-- @name migrate_store
-- @description Migrate a store of an earlier version (store-migration.ts: MIGRATES_FROM), in a copy of its catalog: drop the spans table (empty between ingests; a killed ingest's rows are read again from their files) and every table of facts, which schema.sql then creates with this release's columns, and which store-migration.ts fills again from the spans the store keeps.
-- @param version VARCHAR this release's STORE_VERSION
-- @returns nothing; drops the spans table, the tables of facts and the view scope_members
DROP VIEW IF EXISTS scope_members;
DROP TABLE IF EXISTS spans;
DROP TABLE IF EXISTS run_facts;
DROP TABLE IF EXISTS tool_call_facts;
DROP TABLE IF EXISTS ghost_commit_facts;
DROP TABLE IF EXISTS compensation_facts;
DROP TABLE IF EXISTS cancel_span_facts;
DROP TABLE IF EXISTS steer_mark_facts;
DROP TABLE IF EXISTS commit_facts;
DROP TABLE IF EXISTS steer_facts;
DROP TABLE IF EXISTS replay_facts;
DROP TABLE IF EXISTS model_call_facts;
DROP TABLE IF EXISTS repair_facts;
DROP TABLE IF EXISTS error_span_facts;
DROP TABLE IF EXISTS orphan_process_facts;
DROP TABLE IF EXISTS prevented_commit_facts;
DROP TABLE IF EXISTS clock_pair_facts;
UPDATE store_meta SET value = $version WHERE key = 'store_version';
