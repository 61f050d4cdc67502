CREATE TABLE `fact_watchers` (
	`project_id` text NOT NULL,
	`thread` text NOT NULL,
	`token` text NOT NULL,
	PRIMARY KEY(`project_id`, `thread`)
);
