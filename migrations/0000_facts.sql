CREATE TABLE `fact_dependencies` (
	`project_id` text NOT NULL,
	`fact_id` text NOT NULL,
	`depends_on_id` text NOT NULL,
	PRIMARY KEY(`project_id`, `depends_on_id`, `fact_id`)
);
--> statement-breakpoint
CREATE TABLE `facts` (
	`project_id` text NOT NULL,
	`id` text NOT NULL,
	`lineage_id` text NOT NULL,
	`key` text NOT NULL,
	`value_json` text NOT NULL,
	`content` text NOT NULL,
	`tokens` integer NOT NULL,
	`memory_type` text NOT NULL,
	`user_id` text,
	`thread_id` text NOT NULL,
	`source_type` text NOT NULL,
	`source_authority` text,
	`source_identity` text,
	`authority_rank` integer NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text,
	`supersedes` text,
	`superseded_by` text,
	`is_valid` integer NOT NULL,
	`contradiction_status` text NOT NULL,
	`status_reason` text,
	`depends_on_json` text NOT NULL,
	`needs_review` integer NOT NULL,
	`is_constraint` integer NOT NULL,
	`constraint_type` text,
	`classification` text NOT NULL,
	`allow_roles_json` text NOT NULL,
	`deny_roles_json` text NOT NULL,
	`valid_from` text NOT NULL,
	`valid_until` text,
	`tx_start` text NOT NULL,
	`tx_end` text,
	PRIMARY KEY(`project_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `facts_project_key` ON `facts` (`project_id`,`key`);--> statement-breakpoint
CREATE INDEX `facts_project_current` ON `facts` (`project_id`,`tx_end`);--> statement-breakpoint
CREATE INDEX `facts_project_lineage` ON `facts` (`project_id`,`lineage_id`);