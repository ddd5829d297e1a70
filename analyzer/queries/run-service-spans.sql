-- @name run_service_spans
-- @description The far side of the given runs' tool calls (issue 49), as `afterstop explain` and the HTML report's timelines draw it under each call: the spans of role service (report_spans, prepare-spans.sql), each with the tool call it served (the call id assign-runs.sql gave it: a service's spans have no run), the request span its entry answers (the run's CLIENT span that is the parent of its topmost service span, the entry, kind SERVER), whether it is a work span (db.*, messaging.*, an outgoing CLIENT or PRODUCER span, of its entry's process: the witness of an effect), and the clock bound of its process against the process of the request span (δ, its clock minus the agent's: report_clock_bounds, prepare-clock-bounds.sql, as the report's verdicts bound a witness; NULL when none). Needs the report's prepare chain over an open window or one holding the runs.
-- @param runs VARCHAR[] the runs, by the store's key
-- @returns rows
-- @column run_id           text
-- @column span_id          text
-- @column parent_span_id   text?
-- @column name             text
-- @column kind             int
-- @column service          text?
-- @column process          text?    its process key (service.instance.id, host/pid, or the service name)
-- @column start_ns         bigint   the service's own clock
-- @column end_ns           bigint
-- @column status_code      int      0 unset, 1 ok, 2 error
-- @column system           text?    db.system(.name) or messaging.system
-- @column work             bool     a work span: the witness of an effect
-- @column entry            bool     the service's entry span (its topmost service span)
-- @column request_span_id  text?    the run's span its entry answers (afterstop's request span, or the app's HTTP client span)
-- @column tool_span_id     text?    the tool call it served
-- @column call_id          text?    that call's tool call id (its span id without one)
-- @column delta_max_ns     bigint?  its process' clock minus the run's, at most (NULL: no pair)
-- @column delta_min_ns     bigint?  at least (NULL: no answered pair)
WITH RECURSIVE calls AS MATERIALIZED (
  -- The runs' tool calls, by the key a service's spans keep of the call they served (assign-runs.sql).
  SELECT DISTINCT run_id, trace_id, coalesce(tool_call_id, span_id) AS call_key, span_id AS tool_span_id
  FROM report_spans
  WHERE run_id IN (SELECT unnest($runs)) AND role = 'tool'
),
s AS MATERIALIZED (
  -- The runs' own spans and the service spans that served their tool calls (role service: no run of their own).
  SELECT run_id, span_id, parent_span_id, name, CAST(kind AS INTEGER) AS kind, role, service, process_key, start_ns, end_ns,
    CAST(status_code AS INTEGER) AS status_code, coalesce(db_system, messaging_system) AS system, tool_call_id, http_status,
    CAST(NULL AS VARCHAR) AS tool_span_id
  FROM report_spans
  WHERE run_id IN (SELECT unnest($runs))
  UNION ALL
  SELECT c.run_id, x.span_id, x.parent_span_id, x.name, CAST(x.kind AS INTEGER), x.role, x.service, x.process_key, x.start_ns, x.end_ns,
    CAST(x.status_code AS INTEGER), coalesce(x.db_system, x.messaging_system), x.tool_call_id, x.http_status, c.tool_span_id
  FROM report_spans AS x JOIN calls AS c ON c.trace_id = x.trace_id AND c.call_key = x.tool_call_id
  WHERE x.role = 'service'
),
-- Each service span's chain upward through the service's spans, itself first: its topmost is its entry.
up(sid, run_id, span_id, parent_span_id, depth) AS (
  SELECT span_id, run_id, span_id, parent_span_id, 0 FROM s WHERE role = 'service'
  UNION ALL
  SELECT up.sid, up.run_id, p.span_id, p.parent_span_id, up.depth + 1
  FROM up JOIN s AS p ON p.run_id = up.run_id AND p.span_id = up.parent_span_id
  WHERE p.role = 'service' AND up.depth < 64
),
chain AS (
  SELECT sid, run_id, arg_max(span_id, depth) AS entry_span_id, arg_max(parent_span_id, depth) AS request_span_id
  FROM up GROUP BY sid, run_id
),
-- The clock bound of each ordered pair of processes (report_clock_bounds, prepare-clock-bounds.sql): the one the
-- report's verdicts map a witness through.
bounds AS (
  SELECT client_process, server_process, d_max_ns AS delta_max_ns, d_min_ns AS delta_min_ns FROM report_clock_bounds
)
SELECT
  x.run_id, x.span_id, x.parent_span_id, x.name, x.kind, x.service, x.process_key AS process, x.start_ns, x.end_ns, x.status_code, x.system,
  x.span_id <> h.entry_span_id AND x.process_key IS NOT DISTINCT FROM e.process_key AND (x.system IS NOT NULL OR x.kind IN (3, 4)) AS work,
  x.span_id = h.entry_span_id AS entry,
  h.request_span_id, x.tool_span_id, x.tool_call_id AS call_id,
  p.delta_max_ns, p.delta_min_ns
FROM s AS x
JOIN chain AS h ON h.run_id = x.run_id AND h.sid = x.span_id
LEFT JOIN s AS e ON e.run_id = x.run_id AND e.span_id = h.entry_span_id
-- The agent's clock: the process of the request span the entry answers.
LEFT JOIN s AS c ON c.run_id = x.run_id AND c.span_id = h.request_span_id AND c.role IS DISTINCT FROM 'service'
LEFT JOIN bounds AS p ON p.client_process = c.process_key AND p.server_process = x.process_key
WHERE x.role = 'service'
ORDER BY x.run_id, x.start_ns, x.end_ns, x.span_id;
