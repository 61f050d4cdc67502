-- The versions that refer to another (the one a correction supersedes, those a worked-out figure depends
-- on), by slot: a search follows a chain of references through these, not through every version of every
-- slot it found (src/facts/fact-repository.ts foundSql).
CREATE INDEX `facts_project_superseding` ON `facts` (`project_id`,`key`) WHERE `supersedes` IS NOT NULL;--> statement-breakpoint
CREATE INDEX `facts_project_depending` ON `facts` (`project_id`,`key`) WHERE `depends_on_json` <> '[]';
