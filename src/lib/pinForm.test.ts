import { describe, expect, it } from 'vitest';
import { newPinProblem, pinFieldProblems } from './pinForm.ts';

describe('a PIN being set, typed twice (issue 26)', () => {
  it.each([
    ['the same twice', '2468', '2468', false, null],
    ['eight digits twice', '86420135', '86420135', false, null],
    ['too short', '12', '12', false, 'auth.pinRule'],
    ['nine digits', '123456789', '123456789', false, 'auth.pinRule'],
    ['letters', '12ab', '12ab', false, 'auth.pinRule'],
    ['a space inside', '24 68', '24 68', false, 'auth.pinRule'],
    ['not repeated', '2468', '', false, 'auth.repeatPinEmpty'],
    ['repeated differently', '2468', '2469', false, 'auth.pinsDiffer'],
    ['repeated with a space after', '2468', '2468 ', false, 'auth.pinsDiffer'],
    ['nothing, where it is required', '', '', false, 'auth.pinRule'],
    ['nothing, where empty keeps the PIN', '', '', true, null],
    ['only the repeat, where empty keeps the PIN', '', '2468', true, 'auth.pinRule'],
    ['a new PIN not repeated, where empty keeps the PIN', '2468', '', true, 'auth.repeatPinEmpty'],
    ['a new PIN repeated differently', '2468', '8642', true, 'auth.pinsDiffer'],
    ['one digit repeated', '5555', '5555', false, 'error.problem.trivial_pin'],
    ['digits in a row', '3456', '3456', true, 'error.problem.trivial_pin'],
  ])('%s', (_name, pin, repeat, optional, expected) => {
    expect(newPinProblem(pin, repeat, { optional })).toBe(expected);
  });
});

describe('each of the two PIN fields says its own problem', () => {
  it.each([
    ['the PIN is wrong: the repeat is not judged yet', '12', 'zz', false, { pin: 'auth.pinRule' }],
    ['the repeat differs', '2468', '2486', false, { repeat: 'auth.pinsDiffer' }],
    ['the repeat alone, where empty keeps the PIN', '', '2468', true, { pin: 'auth.pinRule' }],
    ['both empty, where empty keeps the PIN', '', '', true, {}],
    ['a PIN one guesses first', '9876', '9876', false, { pin: 'error.problem.trivial_pin' }],
  ])('%s', (_name, pin, repeat, optional, expected) => {
    expect(pinFieldProblems(pin, repeat, { optional })).toEqual(expected);
  });
});
