import { operatorNameProblem } from '../../electron/shared/form-rules.ts';
import type { TextKey } from './i18n.ts';
import { pinFieldProblems } from './pinForm.ts';

/** The Add operator form's typed fields (the role is picked from a list). */
export interface OperatorFormFields {
  name: string;
  pin: string;
  repeat: string;
}

export type OperatorFormField = keyof OperatorFormFields;

/**
 * What is wrong with each field of Add operator, said beside it before anything is sent
 * (issue 26), by the rules the core refuses with (electron/shared/form-rules.ts): the name
 * the core keeps (trimmed, 1 to 80 characters), a PIN it takes, typed twice the same.
 */
export function operatorFormProblems(fields: OperatorFormFields): Partial<Record<OperatorFormField, TextKey>> {
  const problems: Partial<Record<OperatorFormField, TextKey>> = { ...pinFieldProblems(fields.pin, fields.repeat, { optional: false }) };
  const name = operatorNameProblem(fields.name);
  if (name !== null) problems.name = `error.problem.${name}`;
  return problems;
}
