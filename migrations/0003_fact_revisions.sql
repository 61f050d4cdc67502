CREATE TABLE `fact_revisions` (
	`project_id` text PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `facts` ADD `revision` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `facts_project_revision` ON `facts` (`project_id`,`revision`);--> statement-breakpoint
CREATE INDEX `facts_project_tx_start` ON `facts` (`project_id`,`tx_start`);