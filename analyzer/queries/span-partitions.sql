-- @name span_partitions
-- @description The partitions the spans table fills (a day, of the span's start in UTC, and a service), each with the folder of its files in the store's spans folder, named as DuckDB's PARTITION_BY names it (write-span-files.sql): day=YYYY-MM-DD/service_folder=<service_folder, URL-encoded; __HIVE_DEFAULT_PARTITION__ for none>.
-- @returns rows: one per partition, in order
-- @column day           text
-- @column service_folder text?
-- @column folder        text
-- @column spans         bigint
SELECT
  strftime(span_day(start_ns), '%Y-%m-%d') AS day,
  service_folder(service) AS service_folder,
  'day=' || strftime(span_day(start_ns), '%Y-%m-%d') || '/service_folder=' || coalesce(url_encode(service_folder(service)), '__HIVE_DEFAULT_PARTITION__') AS folder,
  count(*) AS spans
FROM spans
GROUP BY ALL
ORDER BY day, folder;
