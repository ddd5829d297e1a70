-- @name note_touched_scopes
-- @description After steer-mark-facts.sql and commit-facts.sql: the scopes (conversations, else runs or traces) of the marks and commits of the traces just touched join touched_scopes (forget-facts.sql began it with the scopes they had), and what steer-facts.sql and replay-facts.sql computed for those scopes is forgotten, for them to compute it again from every trace of the scope.
-- @returns nothing; fills touched_scopes, deletes from steer_facts and replay_facts
INSERT INTO touched_scopes
SELECT DISTINCT scope FROM scope_members WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM steer_facts WHERE scope IN (SELECT scope FROM touched_scopes);
DELETE FROM replay_facts WHERE scope IN (SELECT scope FROM touched_scopes);
