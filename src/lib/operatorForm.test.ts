import { describe, expect, it } from 'vitest';
import { OPERATOR_NAME_MAX } from '../../electron/shared/form-rules.ts';
import { operatorFormProblems } from './operatorForm.ts';

describe('Add operator names each wrong field beside it (issue 26)', () => {
  it.each([
    ['all right', { name: 'Ana', pin: '2468', repeat: '2468' }, {}],
    ['nothing typed', { name: '', pin: '', repeat: '' }, { name: 'error.problem.operator_name_empty', pin: 'auth.pinRule' }],
    ['a name of spaces, a PIN of letters', { name: '   ', pin: 'abcd', repeat: 'abcd' }, { name: 'error.problem.operator_name_empty', pin: 'auth.pinRule' }],
    ['a name too long and PINs that differ', { name: 'x'.repeat(OPERATOR_NAME_MAX + 1), pin: '2468', repeat: '2469' }, { name: 'error.problem.operator_name_too_long', repeat: 'auth.pinsDiffer' }],
    ['a PIN one guesses first', { name: 'Ana', pin: '1111', repeat: '1111' }, { pin: 'error.problem.trivial_pin' }],
    ['a PIN not repeated', { name: 'Ana', pin: '2468', repeat: '' }, { repeat: 'auth.repeatPinEmpty' }],
    ['a repeat with a line break after', { name: 'Ana', pin: '2468', repeat: '2468\n' }, { repeat: 'auth.pinsDiffer' }],
    ['digits of another script', { name: 'Ana', pin: '\u0662\u0664\u0666\u0668', repeat: '\u0662\u0664\u0666\u0668' }, { pin: 'auth.pinRule' }],
  ])('%s', (_name, fields, expected) => {
    expect(operatorFormProblems(fields)).toEqual(expected);
  });
});
