CREATE TABLE `traces` (
	`tenant` text NOT NULL,
	`trace_id` text NOT NULL,
	`project_id` text NOT NULL,
	`thread` text NOT NULL,
	`created_at` text NOT NULL,
	`query_sha256` text NOT NULL,
	`query_chars` integer NOT NULL,
	`budget_tokens` integer NOT NULL,
	`tokens` integer NOT NULL,
	`compile_ms` real NOT NULL,
	`candidate_count` integer NOT NULL,
	`compiled_count` integer NOT NULL,
	`omitted_count` integer NOT NULL,
	`quarantined_count` integer NOT NULL,
	`trace_json` text NOT NULL,
	PRIMARY KEY(`tenant`, `trace_id`)
);
--> statement-breakpoint
CREATE INDEX `traces_thread_created` ON `traces` (`tenant`,`thread`,`created_at`);