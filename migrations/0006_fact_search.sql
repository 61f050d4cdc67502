-- Full-text search over a project's current facts (src/facts/fact-candidates.ts): a compile asks for the
-- facts its query matches instead of loading the project's newest versions, so a current fact is found
-- whatever its age. FTS5 with the porter tokenizer, as the thread's message index.
--
-- Each current fact version is one document. `fact_search_docs` gives it a stable integer id (the FTS
-- rowid): the rowids of `facts` itself may change on VACUUM, as it has no INTEGER PRIMARY KEY. The
-- `project` column holds 'p' || hex(project_id), one token, so a MATCH is narrowed to one project by the
-- index itself; the join on `fact_search_docs.project_id` keeps it exact. Triggers keep the index equal to
-- the set of versions whose `tx_end` is NULL, whichever code path writes `facts`.
CREATE TABLE `fact_search_docs` (
	`doc` integer PRIMARY KEY,
	`project_id` text NOT NULL,
	`fact_id` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fact_search_docs_fact` ON `fact_search_docs` (`project_id`, `fact_id`);
--> statement-breakpoint
CREATE VIRTUAL TABLE `fact_search` USING fts5(`project`, `text`, tokenize = 'porter unicode61');
--> statement-breakpoint
INSERT INTO `fact_search_docs` (`project_id`, `fact_id`)
SELECT `project_id`, `id` FROM `facts` WHERE `tx_end` IS NULL ORDER BY `project_id`, `tx_start`, `id`;
--> statement-breakpoint
INSERT INTO `fact_search` (`rowid`, `project`, `text`)
SELECT `d`.`doc`, 'p' || hex(`f`.`project_id`), `f`.`key` || ' ' || `f`.`content`
FROM `fact_search_docs` `d` JOIN `facts` `f` ON `f`.`project_id` = `d`.`project_id` AND `f`.`id` = `d`.`fact_id`;
--> statement-breakpoint
CREATE TRIGGER `fact_search_on_insert` AFTER INSERT ON `facts` WHEN NEW.`tx_end` IS NULL BEGIN
	INSERT INTO `fact_search_docs` (`project_id`, `fact_id`) VALUES (NEW.`project_id`, NEW.`id`);
	INSERT INTO `fact_search` (`rowid`, `project`, `text`)
	VALUES (last_insert_rowid(), 'p' || hex(NEW.`project_id`), NEW.`key` || ' ' || NEW.`content`);
END;
--> statement-breakpoint
CREATE TRIGGER `fact_search_on_close` AFTER UPDATE OF `tx_end` ON `facts`
WHEN OLD.`tx_end` IS NULL AND NEW.`tx_end` IS NOT NULL BEGIN
	DELETE FROM `fact_search` WHERE `rowid` IN (
		SELECT `doc` FROM `fact_search_docs` WHERE `project_id` = OLD.`project_id` AND `fact_id` = OLD.`id`
	);
	DELETE FROM `fact_search_docs` WHERE `project_id` = OLD.`project_id` AND `fact_id` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `fact_search_on_reopen` AFTER UPDATE OF `tx_end` ON `facts`
WHEN OLD.`tx_end` IS NOT NULL AND NEW.`tx_end` IS NULL BEGIN
	INSERT INTO `fact_search_docs` (`project_id`, `fact_id`) VALUES (NEW.`project_id`, NEW.`id`);
	INSERT INTO `fact_search` (`rowid`, `project`, `text`)
	VALUES (last_insert_rowid(), 'p' || hex(NEW.`project_id`), NEW.`key` || ' ' || NEW.`content`);
END;
--> statement-breakpoint
CREATE TRIGGER `fact_search_on_delete` AFTER DELETE ON `facts` WHEN OLD.`tx_end` IS NULL BEGIN
	DELETE FROM `fact_search` WHERE `rowid` IN (
		SELECT `doc` FROM `fact_search_docs` WHERE `project_id` = OLD.`project_id` AND `fact_id` = OLD.`id`
	);
	DELETE FROM `fact_search_docs` WHERE `project_id` = OLD.`project_id` AND `fact_id` = OLD.`id`;
END;
--> statement-breakpoint
-- The standing set every compile reads whatever the query (constraints, and policy or system rules),
-- highest authority first. The query states the same condition, in literals, so the index serves it.
CREATE INDEX `facts_current_standing` ON `facts` (`project_id`, `authority_rank`, `tx_start`)
WHERE `tx_end` IS NULL AND (`is_constraint` = 1 OR `source_type` IN ('policy', 'system'));
