ALTER TABLE `facts` ADD `summary` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `facts` ADD `summary_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `facts` ADD `micro` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `facts` ADD `micro_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `facts` ADD `context_json` text DEFAULT '{}' NOT NULL;