-- Up Migration

-- An attempt can end a delivery as FAILED at once: a webhook target that the address policy
-- refuses for good (an address written in the URL that is loopback, private, link-local, …, or a
-- loopback name) can never succeed, so it is not retried for the whole retry window
-- (docs/webhooks.md, "Where webhooks may go"). The delivery's own status already allows FAILED.
ALTER TABLE webhook_attempt DROP CONSTRAINT webhook_attempt_outcome_check;
ALTER TABLE webhook_attempt ADD CONSTRAINT webhook_attempt_outcome_check CHECK (outcome IN ('DELIVERED', 'RETRY', 'CANCELLED', 'FAILED'));

-- Down Migration

DELETE FROM webhook_attempt WHERE outcome = 'FAILED';
ALTER TABLE webhook_attempt DROP CONSTRAINT webhook_attempt_outcome_check;
ALTER TABLE webhook_attempt ADD CONSTRAINT webhook_attempt_outcome_check CHECK (outcome IN ('DELIVERED', 'RETRY', 'CANCELLED'));
