-- One current version per fact slot (project, key, scope, scope id, owner). Databases written before this
-- migration may hold several current versions of a slot (concurrent writers, late older writes): all but
-- the newest by valid time (ties by id, as src/facts/plan-writes.ts orders them) are closed first, as
-- superseded by the newest, so the unique index below can be built. Their projects' revision is bumped and
-- the closed rows stamped with it, so every thread's fact cache picks the change up.
UPDATE `fact_revisions` SET `revision` = `revision` + 1 WHERE `project_id` IN (
	SELECT `f`.`project_id` FROM `facts` `f`
	WHERE `f`.`tx_end` IS NULL AND `f`.`is_valid` = 1 AND `f`.`contradiction_status` <> 'disputed'
	AND EXISTS (
		SELECT 1 FROM `facts` `n`
		WHERE `n`.`project_id` = `f`.`project_id` AND `n`.`key` = `f`.`key` AND `n`.`scope` = `f`.`scope`
		AND coalesce(`n`.`scope_id`, '') = coalesce(`f`.`scope_id`, '') AND coalesce(`n`.`user_id`, '') = coalesce(`f`.`user_id`, '')
		AND `n`.`tx_end` IS NULL AND `n`.`is_valid` = 1 AND `n`.`contradiction_status` <> 'disputed'
		AND (`n`.`valid_from` > `f`.`valid_from` OR (`n`.`valid_from` = `f`.`valid_from` AND `n`.`id` > `f`.`id`))
	)
);
--> statement-breakpoint
UPDATE `facts` SET
	`is_valid` = 0,
	`tx_end` = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
	`superseded_by` = (
		SELECT `n`.`id` FROM `facts` `n`
		WHERE `n`.`project_id` = `facts`.`project_id` AND `n`.`key` = `facts`.`key` AND `n`.`scope` = `facts`.`scope`
		AND coalesce(`n`.`scope_id`, '') = coalesce(`facts`.`scope_id`, '') AND coalesce(`n`.`user_id`, '') = coalesce(`facts`.`user_id`, '')
		AND `n`.`tx_end` IS NULL AND `n`.`is_valid` = 1 AND `n`.`contradiction_status` <> 'disputed'
		ORDER BY `n`.`valid_from` DESC, `n`.`id` DESC LIMIT 1
	),
	`revision` = coalesce((SELECT `r`.`revision` FROM `fact_revisions` `r` WHERE `r`.`project_id` = `facts`.`project_id`), `facts`.`revision`)
WHERE `tx_end` IS NULL AND `is_valid` = 1 AND `contradiction_status` <> 'disputed'
AND EXISTS (
	SELECT 1 FROM `facts` `n`
	WHERE `n`.`project_id` = `facts`.`project_id` AND `n`.`key` = `facts`.`key` AND `n`.`scope` = `facts`.`scope`
	AND coalesce(`n`.`scope_id`, '') = coalesce(`facts`.`scope_id`, '') AND coalesce(`n`.`user_id`, '') = coalesce(`facts`.`user_id`, '')
	AND `n`.`tx_end` IS NULL AND `n`.`is_valid` = 1 AND `n`.`contradiction_status` <> 'disputed'
	AND (`n`.`valid_from` > `facts`.`valid_from` OR (`n`.`valid_from` = `facts`.`valid_from` AND `n`.`id` > `facts`.`id`))
);
--> statement-breakpoint
CREATE TABLE `fact_plan_checks` (
	`id` integer PRIMARY KEY NOT NULL,
	`matched` integer NOT NULL,
	CONSTRAINT "fact_plan_stale" CHECK(`matched` = 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `facts_one_current` ON `facts` (`project_id`,`key`,`scope`,coalesce(`scope_id`, ''),coalesce(`user_id`, '')) WHERE `tx_end` IS NULL AND `is_valid` = 1 AND `contradiction_status` <> 'disputed';
