import { ProblemError } from "../http/problem";

/** How far ahead of the server's clock an event's `ts` may be, unless MAX_FUTURE_HOURS says otherwise. */
export const DEFAULT_MAX_FUTURE_HOURS = 24;

/** The allowance in milliseconds from the deployment's setting (hours; a non-number keeps the default). */
export function maxFutureMs(setting: string | undefined): number {
  const hours = setting === undefined || setting.trim() === "" ? Number.NaN : Number(setting);
  return (Number.isFinite(hours) && hours >= 0 ? hours : DEFAULT_MAX_FUTURE_HOURS) * 3_600_000;
}

/**
 * Refuses events stamped further in the future than the allowance: a message "said" next year is a
 * clock or client bug, and would sort after everything said until then. Names each offending field.
 */
export function refuseFarFuture(events: readonly { ts?: string }[], now: number, allowanceMs: number): void {
  const limit = now + allowanceMs;
  const errors = events.flatMap((event, i) =>
    event.ts !== undefined && Date.parse(event.ts) > limit
      ? [
          {
            field: `events.${i}.ts`,
            message: `more than ${allowanceMs / 3_600_000} hours after the server's clock (${new Date(now).toISOString()})`,
          },
        ]
      : [],
  );
  if (errors.length) {
    throw new ProblemError(
      400,
      "Invalid request",
      `Invalid field(s): ${errors.map((e) => e.field).join(", ")}`,
      errors,
    );
  }
}
