-- Traces by age within a tenant: retention deletes the oldest first (src/traces/trace-retention.ts).
CREATE INDEX `traces_tenant_created` ON `traces` (`tenant`,`created_at`);