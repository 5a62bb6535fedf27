-- Each entry links to the one before it in the database itself, not only through its hash:
-- (seq - 1, prev) must be an entry's (seq, hash). An append whose first entry follows an entry
-- the database does not have (it was restored from an older backup, or a replica promoted
-- without the last commits of its primary) is refused whole, instead of leaving a gap that
-- only the next verify would find. The first entry (seq 1) follows no entry.

alter table entries add constraint entries_seq_hash unique (seq, hash);
alter table entries add column prev_seq bigint generated always as (nullif(seq - 1, 0)) stored;
alter table entries add constraint entries_follow foreign key (prev_seq, prev) references entries (seq, hash);
