-- @name set_store_version
-- @description Mark a new store with the version of its layout.
-- @param version VARCHAR the version
-- @returns nothing
INSERT INTO store_meta VALUES ('store_version', $version);
