-- @name forget_skipped
-- @description Forget the skipped lines of files about to be recorded again (each is read whole each time).
-- @param files VARCHAR[] the files
-- @returns nothing
DELETE FROM skipped_lines WHERE file IN (SELECT unnest(CAST($files AS VARCHAR[])));
