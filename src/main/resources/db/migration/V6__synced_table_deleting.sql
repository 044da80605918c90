-- A synced table being deleted (SPEC 9.1): set before its PostgreSQL table is dropped and cleared with the row after,
-- so a crash in between leaves a row that says so, which the next DELETE or the catch-up finishes, never a PostgreSQL
-- table nothing refers to.
ALTER TABLE synced_tables ADD COLUMN deleting_since TIMESTAMPTZ;
