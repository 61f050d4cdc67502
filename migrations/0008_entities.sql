-- Seed 001's canonical entity registry, per project (src/entities/entity-schema.ts): entities with their
-- aliases and candidate terms, the facts that refer to each, review items for ambiguous matches, the
-- merge/split/review history, and the guard a registry batch checks its updates with.
CREATE TABLE `entities` (
	`project_id` text NOT NULL,
	`id` text NOT NULL,
	`canonical_name` text NOT NULL,
	`entity_type` text NOT NULL,
	`status` text NOT NULL,
	`merged_into` text,
	`metadata_json` text DEFAULT '{}' NOT NULL,
	`provenance_json` text DEFAULT '{}' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `entities_project_name` ON `entities` (`project_id`,`canonical_name`,`id`);--> statement-breakpoint
CREATE INDEX `entities_project_type_name` ON `entities` (`project_id`,`entity_type`,`canonical_name`,`id`);--> statement-breakpoint
CREATE TABLE `entity_aliases` (
	`project_id` text NOT NULL,
	`entity_id` text NOT NULL,
	`alias` text NOT NULL,
	`norm` text NOT NULL,
	`source` text NOT NULL,
	`added_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `entity_id`, `norm`)
);
--> statement-breakpoint
CREATE INDEX `entity_aliases_norm` ON `entity_aliases` (`project_id`,`norm`);--> statement-breakpoint
CREATE TABLE `entity_guards` (
	`id` integer PRIMARY KEY NOT NULL,
	`matched` integer NOT NULL,
	CONSTRAINT "entity_guard_stale" CHECK("entity_guards"."matched" = 1)
);
--> statement-breakpoint
CREATE TABLE `entity_history` (
	`project_id` text NOT NULL,
	`id` text NOT NULL,
	`entity_id` text NOT NULL,
	`event` text NOT NULL,
	`other_id` text,
	`detail_json` text DEFAULT '{}' NOT NULL,
	`at` text NOT NULL,
	PRIMARY KEY(`project_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `entity_history_entity` ON `entity_history` (`project_id`,`entity_id`,`at`);--> statement-breakpoint
CREATE TABLE `entity_reviews` (
	`project_id` text NOT NULL,
	`id` text NOT NULL,
	`entity_id` text NOT NULL,
	`candidate_id` text NOT NULL,
	`runner_up_id` text,
	`score` real NOT NULL,
	`features_json` text NOT NULL,
	`status` text NOT NULL,
	`reason` text,
	`created_at` text NOT NULL,
	`decided_at` text,
	PRIMARY KEY(`project_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `entity_reviews_status` ON `entity_reviews` (`project_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `entity_terms` (
	`project_id` text NOT NULL,
	`term` text NOT NULL,
	`entity_id` text NOT NULL,
	`norm` text NOT NULL,
	PRIMARY KEY(`project_id`, `term`, `entity_id`, `norm`)
);
--> statement-breakpoint
CREATE INDEX `entity_terms_entity` ON `entity_terms` (`project_id`,`entity_id`);--> statement-breakpoint
CREATE TABLE `fact_entities` (
	`project_id` text NOT NULL,
	`fact_id` text NOT NULL,
	`mention` text NOT NULL,
	`entity_id` text NOT NULL,
	PRIMARY KEY(`project_id`, `fact_id`, `mention`)
);
--> statement-breakpoint
CREATE INDEX `fact_entities_entity` ON `fact_entities` (`project_id`,`entity_id`,`fact_id`);