-- @name span_count
-- @description How many spans the store holds.
-- @returns n
SELECT count(*) AS n FROM spans;
