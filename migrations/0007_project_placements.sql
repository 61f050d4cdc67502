-- The project directory of a tenant with several D1 databases (src/tenancy/placement.ts): which database
-- holds each project. Only the tenant's home database uses it; a project's row is written once and never
-- changed, so a project never moves.
CREATE TABLE `project_placements` (
	`project_id` text PRIMARY KEY NOT NULL,
	`database` text NOT NULL,
	`placed_at` text NOT NULL
);
