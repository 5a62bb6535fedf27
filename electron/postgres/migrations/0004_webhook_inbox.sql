-- Webhooks taken at any core: a standby core (one waiting for the merchant's lease) verifies a
-- delivery's signature and commits it here before it answers 2xx; the active core applies the
-- rows in `id` order through the same path as a webhook it received itself, and marks each
-- applied only once the journal holds it.
--
-- webhook_inbox  one row per webhook-id (webhook_inbox_once): a delivery already here is a
--                duplicate and changes nothing. `body` is the raw body as received, the very
--                bytes the signature covered; `timestamp_sec` is its webhook-timestamp;
--                `event` is the payload's event, for a person reading the table. Times are
--                epoch ms from the cores' injected clocks (as the entries' `at`), and each
--                time names the core (its lease holder) that took or applied the row.
--                `outcome` says what applying did: recorded (journaled now), duplicate (the
--                journal already had that webhook-id, taken by the active core itself) or
--                unreadable (a row whose body is no longer a JSON event: never applied).
--
-- An insert notifies the channel pos_webhook_inbox (with the row's id) when it commits, so
-- the active core applies it at once; it also looks now and then, should a notice be lost.

create table webhook_inbox (
  id            bigint generated always as identity primary key,
  webhook_id    text   not null check (length(webhook_id) between 1 and 256),
  timestamp_sec bigint not null,
  event         text   not null,
  body          bytea  not null,
  received_at   bigint not null,
  received_by   text   not null,
  applied_at    bigint,
  applied_by    text,
  outcome       text   check (outcome in ('recorded', 'duplicate', 'unreadable')),
  check ((applied_at is null) = (outcome is null) and (applied_at is null) = (applied_by is null)),
  constraint webhook_inbox_once unique (webhook_id)
);
create index webhook_inbox_pending on webhook_inbox (id) where applied_at is null;
