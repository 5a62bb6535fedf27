-- Which core of the merchant may write: one lease, held by one core at a time.
--
-- core_lease  one row. `holder` names the core (its own random id), `term` grows by one at
--             every takeover, `expires_at` is when the holder's lease runs out unless it
--             renews it (the database's clock decides, so cores on different machines agree).
--
-- pos_fence(term, holder) is called by every append, inside the append's own statement: it
-- takes a share lock on the lease row and raises SQLSTATE PF001 unless that core still holds
-- the lease under that term. A takeover (an UPDATE of the row) waits for an append already
-- holding the lock to commit; an append that waited for a takeover sees the new term and is
-- refused. So a core that was paused, partitioned or slow past its lease can never write
-- again under its old term. The fence checks the term, not the time: a lease that ran out
-- while no one took it over (the database restarted, say) is still its holder's, who renews
-- it; running out only lets a standby take over.

create table core_lease (
  id         integer     primary key check (id = 1),
  holder     text        not null,
  term       bigint      not null check (term >= 0),
  expires_at timestamptz not null
);
insert into core_lease (id, holder, term, expires_at) values (1, '', 0, '-infinity');

create function pos_fence(expected_term bigint, expected_holder text) returns integer
language plpgsql as $$
begin
  perform 1 from core_lease
    where id = 1 and term = expected_term and holder = expected_holder
    for share;
  if not found then
    raise exception 'this core no longer holds the lease of term %', expected_term using errcode = 'PF001';
  end if;
  return 1;
end
$$;
