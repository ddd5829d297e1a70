-- @name prune_span_files
-- @description Retention (afterstop prune): forget the Parquet files of the days wholly before the cutoff's day (UTC), and of the days wholly after the future's start (spans stamped in the future: clock skew or bad data); they are then deleted. The trace files already read stay recorded, so that they are not read again.
-- @param before_ns BIGINT the cutoff in ns since the epoch
-- @param future_ns BIGINT where the future begins (now and a day), in ns since the epoch
-- @returns rows: the files forgotten
-- @column path  text
-- @column day   text
-- @column spans bigint
DELETE FROM span_files WHERE day < span_day($before_ns) OR day > span_day($future_ns) RETURNING path, strftime(day, '%Y-%m-%d') AS day, spans;
