-- 0001: the journal on PostgreSQL, a first cut of what electron/core/journal keeps in files.
--
-- entries          the journal itself: one row per entry, in seq order, hash-chained exactly
--                  as the file journal is (hash = sha256 of the canonical JSON of
--                  {at, data, prev, seq, type}, prev = the previous entry's hash), so `verify`
--                  means the same on both backends. Who did an operator action is data.by,
--                  as in the files. `at` is epoch ms from the core's injected clock, not the
--                  server's. data is the entry's canonical JSON as text, the very bytes the
--                  hash covers: jsonb would reorder nothing that matters, but it cannot hold
--                  a \u0000 in a string, and the chain must verify byte for byte.
-- entry_sales      which entries are about which sale (data.sale_id and data.sale_ids), so a
--                  sale's history is an index read, not a scan of the journal.
-- sales            the sale index: the reducer's record of each sale (its JSON, as text) and
--                  the keys the sale queries use (checkout, store, status, pix_id, service_id,
--                  external id, shift, the needs-a-person and displaceable flags, creation
--                  time, the amount). Money is integer minor units (centavos) in bigint,
--                  never a float.
-- shifts           shift.opened / shift.closed folded into one row per shift.
-- projections      the core's derived states (JournalDefinition.projections), each as of the
--                  entry it last folded in, as JSON text.
-- journal_state    one row: how many entries a reducer or projection failed on, across starts
--                  (the file journal keeps that count in its checkpoint).
-- webhook_ids      one row per webhook-id journaled: the PRIMARY KEY is the dedupe, so two
--                  deliveries of one webhook cannot both commit (no read-then-write).
-- settlement_ids   one row per settlement_id whose settlement.settled is journaled, naming
--                  the first entry that carried it: reconciled once per settlement_id.
-- idempotency_keys one row per Idempotency-Key the core sends (a sale's create, a refund):
--                  a key belongs to one request, so a second request cannot be journaled
--                  under a key already taken.
--
-- Every row an append changes is written in the append's one transaction, with its entries.
-- The dedupe constraints are named (*_once) so the adapter maps a unique_violation (23505)
-- on them to "duplicate" and anything else to an error.

create table entries (
  seq   bigint primary key check (seq > 0),
  prev  text   not null check (prev ~ '^[0-9a-f]{64}$'),
  hash  text   not null check (hash ~ '^[0-9a-f]{64}$'),
  at    bigint not null,
  type  text   not null check (type <> ''),
  data  text   not null check (left(data, 1) = '{')
);
create index entries_by_at on entries (at, seq);
create index entries_by_type on entries (type, seq);

create table entry_sales (
  sale_id text   not null,
  seq     bigint not null references entries (seq),
  primary key (sale_id, seq)
);

create table sales (
  sale_id      text   primary key,
  store_id     integer,
  checkout_id  integer,
  status       text,
  created_at   bigint,
  amount_cents bigint check (amount_cents >= 0),
  pix_id       text,
  service_id   text,
  external_id  text,
  shift_id     text,
  needs_person boolean not null default false,
  displaceable boolean not null default false,
  record       text   not null,
  -- The last entry that changed the sale: what a replica or a re-run compares against.
  touched_seq  bigint not null references entries (seq),
  touched_at   bigint not null
);
create index sales_by_checkout on sales (store_id, checkout_id, created_at);
create index sales_by_pix_id on sales (pix_id) where pix_id is not null;
create index sales_by_service_id on sales (service_id) where service_id is not null;
create index sales_by_external_id on sales (external_id) where external_id is not null;
create index sales_by_status on sales (status);
create index sales_by_shift on sales (shift_id) where shift_id is not null;
create index sales_by_created_at on sales (created_at);
create index sales_needing_person on sales (store_id, checkout_id) where needs_person;
create index sales_displaceable on sales (store_id, checkout_id) where displaceable;

create table shifts (
  id         text   primary key,
  state      text   not null check (state in ('open', 'closed')),
  opened_at  bigint not null,
  opened_by  text   not null,
  opened_seq bigint not null references entries (seq),
  closed_at  bigint,
  closed_by  text,
  closed_seq bigint references entries (seq),
  check ((state = 'closed') = (closed_seq is not null))
);
create index shifts_by_opened_at on shifts (opened_at);
create index shifts_open on shifts (id) where state = 'open';

create table projections (
  name  text   primary key,
  state text   not null,
  seq   bigint not null references entries (seq)
);

create table journal_state (
  id               integer primary key check (id = 1),
  reducer_failures bigint  not null default 0 check (reducer_failures >= 0)
);
insert into journal_state (id) values (1);

create table webhook_ids (
  webhook_id text   not null check (length(webhook_id) between 1 and 256),
  seq        bigint not null references entries (seq),
  constraint webhook_ids_once primary key (webhook_id)
);

create table settlement_ids (
  settlement_id bigint not null,
  seq           bigint not null references entries (seq),
  constraint settlement_ids_once primary key (settlement_id)
);

create table idempotency_keys (
  idempotency_key text   not null check (idempotency_key <> ''),
  sale_id         text   not null,
  seq             bigint not null references entries (seq),
  constraint idempotency_keys_once primary key (idempotency_key)
);
create index idempotency_keys_by_sale on idempotency_keys (sale_id);
