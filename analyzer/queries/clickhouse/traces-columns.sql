-- @name traces_columns
-- @description ClickHouse: the columns of the exporter's traces table and their types, to tell its schema: attributes as Map (the default) or JSON (the exporter's json option), and whether it has ScopeName (the oldest schema kept the scope in SpanAttributes as otel.scope.name).
-- @param database String the exporter's database
-- @param table    String its traces table
-- @returns rows
-- @column name text
-- @column type text
SELECT name, type FROM system.columns WHERE database = {database:String} AND table = {table:String} ORDER BY position
