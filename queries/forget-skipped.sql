-- @name forget_skipped
-- @description Forget the skipped lines of a file about to be recorded again (it is read whole each time).
-- @param file VARCHAR the file
-- @returns nothing
DELETE FROM skipped_lines WHERE file = $file;
