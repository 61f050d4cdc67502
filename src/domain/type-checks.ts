/**
 * Compile-time checks that a type defined at an edge (a zod schema's output, drizzle's row) is the
 * domain's own type, so the two cannot drift: `const check: SameType<Edge, Domain> = true` fails to
 * compile as soon as either side gains, loses or retypes a field.
 */
export type SameType<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
