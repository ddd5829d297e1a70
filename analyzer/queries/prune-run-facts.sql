-- @name prune_run_facts
-- @description Retention (afterstop prune, with prune-span-files.sql): forget the runs that ended (or, unended, started) on a day wholly before the cutoff's day, whose spans go with those days; a run that crosses into a kept day keeps its facts. And the runs that start at or after the future's start (stamped in the future: clock skew or bad data).
-- @param before_ns BIGINT the cutoff in ns since the epoch
-- @param future_ns BIGINT where the future begins (now and a day), in ns since the epoch
-- @returns rows: the runs forgotten
-- @column run_id text
DELETE FROM run_facts WHERE span_day(coalesce(end_ns, start_ns)) < span_day($before_ns) OR start_ns >= $future_ns RETURNING run_id;
