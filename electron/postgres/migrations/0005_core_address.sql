-- Where the merchant's active core serves its tills: `address` (host:port, as the other cores
-- reach it) is written by the lease's holder when it takes and renews the lease, and read by
-- the standbys as they wait. A standby relays every till connection it receives to that
-- address, so a till keeps working whichever core it was pointed at. Null: the holder
-- publishes none (it let the lease go, or it has no address other cores can reach), and a
-- standby refuses the connections it cannot send anywhere.

alter table core_lease add column address text;
