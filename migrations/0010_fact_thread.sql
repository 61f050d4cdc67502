-- A thread's own current facts, newest first: a compile's `thread` candidates (src/facts/fact-candidates.ts),
-- read without scanning the project however many other threads wrote to it.
CREATE INDEX `facts_project_thread` ON `facts` (`project_id`,`thread_id`,`tx_start`);
