-- Which entities a thread's messages and tool output refer to (src/entities/entity-schema.ts), by the
-- normal name each used; written by extraction runs, read by an entity's page and a compile's episodes.
CREATE TABLE `message_entities` (
	`project_id` text NOT NULL,
	`thread_id` text NOT NULL,
	`message_id` text NOT NULL,
	`mention` text NOT NULL,
	`entity_id` text NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`project_id`, `thread_id`, `message_id`, `mention`)
);
--> statement-breakpoint
CREATE INDEX `message_entities_entity` ON `message_entities` (`project_id`,`entity_id`,`thread_id`,`seq`);