/** The caller a thread speaks for: who they are and what they are cleared to see. */
export interface Identity {
  user_id: string;
  user_name?: string;
  /** The writer's place on the tenant's authority ladder, by name. */
  authority?: string;
  roles?: string[];
  department?: string;
  organization?: string;
  /** Clearances such as "secrets:read" and "pii:read". */
  permissions?: string[];
}
