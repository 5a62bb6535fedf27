/**
 * The project's one schema language for data that crosses a boundary: the renderer's calls
 * (core/bridge), the service's answers (core/api), the requests the sandbox receives
 * (sandbox) and database rows. Shapes are declared with valibot and their TypeScript types
 * derived from them (`v.InferOutput<typeof Schema>`); each boundary keeps its own sentence
 * style by turning the first (or every) issue into its own error.
 *
 * What valibot cannot know is written here once, as refinements every boundary reuses:
 * a wire amount read exactly at its currency's scale (money's strict rule, shared/money.ts),
 * and where in the input an issue stands.
 */
import * as v from 'valibot';
import { decodeWireAmount } from './money.ts';
import type { WireAmountOptions, WireAmountProblem } from './money.ts';

export { v };

/**
 * A wire amount (decimal text or JSON number) read into integer minor units at `scale`,
 * never through a float. The issue's message is `describe(problem)`, so each boundary
 * words the refusal its own way while the rule stays this one.
 */
export function wireAmount(options: WireAmountOptions, describe: (problem: WireAmountProblem) => string) {
  return v.pipe(
    v.unknown(),
    v.rawTransform<unknown, number>(({ dataset, addIssue, NEVER }) => {
      const decoded = decodeWireAmount(dataset.value, options);
      if (decoded.ok) return decoded.minor;
      addIssue({ message: describe(decoded.problem) });
      return NEVER;
    }),
  );
}

/**
 * Where an issue stands, as the project writes paths: `settlements[3].amount` (`root` in
 * front when given: `response.settlements[3].amount`). An issue at the root is `root`, or ''.
 */
export function issuePath(issue: v.BaseIssue<unknown>, root = ''): string {
  let out = root;
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** The first issue of `input` against `schema`, or the typed value. */
export function firstIssue<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
): { ok: true; value: v.InferOutput<S> } | { ok: false; issue: v.InferIssue<S> } {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return { ok: true, value: result.output };
  const [issue] = result.issues;
  return { ok: false, issue };
}
