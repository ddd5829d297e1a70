-- @name explain_runs
-- @description The runs `afterstop explain` draws for an id: a run by the store's key (`<trace id>:<run id>`) or by its id within its trace (the same id in several traces gives each), or every run of a trace by the trace's id (hex, any case); in start order (a run named by its key first), at most $limit, with how many match in all. Each with what its timeline is drawn against: start and end, C and whether it is inferred, A and the settle marker, outcome, group and conversation, and the frameworks afterstop does not instrument that ran beside it.
-- @param id    VARCHAR the id as the user gave it
-- @param limit UBIGINT at most this many runs
-- @returns rows
-- @column run_id          text     the store's key: trace id and run id
-- @column trace_id        text
-- @column local_id        text     the run's id within its trace, as the report shows it
-- @column service         text?
-- @column agent           text?
-- @column framework       text?
-- @column conversation_id text?
-- @column start_ns        bigint
-- @column end_ns          bigint?  NULL: the run span was never exported
-- @column outcome         text?
-- @column cancelled       bool
-- @column cancel_inferred bool     no marker: C as a foreign trace shows it
-- @column c_ns            bigint?
-- @column a_ns            bigint?
-- @column settle_ns       bigint?  the settle marker
-- @column uninstrumented  text?    the frameworks afterstop does not instrument that ran beside it, comma-separated (its figures are lower bounds)
-- @column matches         int      how many runs the id matches in all (more than $limit: not all given)
SELECT
  r.run_id, r.trace_id, substring(r.run_id, position(':' IN r.run_id) + 1) AS local_id,
  r.service, r.agent, r.framework, r.conversation_id, r.start_ns, r.end_ns, r.outcome,
  r.cancelled, r.cancel_inferred, r.c_ns, r.a_ns, r.settle_marker_ns AS settle_ns, r.uninstrumented,
  CAST(count(*) OVER () AS INTEGER) AS matches
FROM run_facts AS r
WHERE r.run_id = $id
   OR substring(r.run_id, position(':' IN r.run_id) + 1) = $id
   OR r.trace_id = lower(trim($id))
-- A run named by its key first: the id of another run within its trace may match it too.
ORDER BY r.run_id = $id DESC, r.start_ns, r.run_id
LIMIT $limit;
