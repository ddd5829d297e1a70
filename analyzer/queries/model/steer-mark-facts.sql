-- @name steer_mark_facts
-- @description The steering marks (afterstop.steer.enqueue, inject, drop) of the runs of the traces just touched (DuckDB: touched_traces, inserted into the store's steer_mark_facts at ingest; ClickHouse: every trace read, the session's steer_mark_facts), each with its scope: the span's conversation, else its run's, else the run itself. A steer's marks may lie in several traces of one conversation: steer-facts.sql combines them.
-- @returns nothing; fills steer_mark_facts (with its run's service, agent, framework and start, run_start_ns)
@store_insert(steer_mark_facts)
SELECT s.run_id, s.trace_id, s.name, s.start_ns, s.steer_id, s.steer_position AS position,
  coalesce(s.conversation_id, r.conversation_id, 'run:' || r.run_id) AS scope,
  -- Its run's group and start (the report's window): steering's figures are grouped by them without joining the runs.
  r.service, r.agent, r.framework, r.start_ns AS run_start_ns
FROM @assigned_spans AS s JOIN run_facts AS r ON r.run_id = s.run_id
WHERE s.name IN ('afterstop.steer.enqueue', 'afterstop.steer.inject', 'afterstop.steer.drop') AND @touched(s.trace_id);
