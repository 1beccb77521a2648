import { describe, expect, it } from 'vitest';
import {
  defaultParams,
  effectiveGroup,
  groupChoices,
  modelChoices,
  parseMaxTokens,
  restoreParams,
  shownTemperature,
} from './params';

const PROMPT = 'Default prompt';

describe('playground parameters (spec 3 §5, §9)', () => {
  it('start from the spec defaults', () => {
    expect(defaultParams(PROMPT)).toEqual({
      model: 'gpt-4o-mini',
      group: '',
      temperature: 0,
      topP: 1,
      maxTokens: 0,
      systemPrompt: PROMPT,
      stream: true,
    });
  });

  it('read a stored copy back field by field, defaults for what is missing or broken', () => {
    expect(restoreParams(null, PROMPT)).toEqual(defaultParams(PROMPT));
    expect(restoreParams('junk', PROMPT)).toEqual(defaultParams(PROMPT));
    expect(
      restoreParams(
        { model: ' gpt-4o ', group: 'vip', temperature: 0.4, topP: 0.9, maxTokens: 300, systemPrompt: '', stream: false },
        PROMPT,
      ),
    ).toEqual({ model: 'gpt-4o', group: 'vip', temperature: 0.4, topP: 0.9, maxTokens: 300, systemPrompt: '', stream: false });
    expect(restoreParams({ model: '', temperature: 9, topP: -1, maxTokens: -5, stream: 'yes' }, PROMPT)).toMatchObject({
      model: 'gpt-4o-mini',
      temperature: 1,
      topP: 0,
      maxTokens: 0,
      stream: true,
      systemPrompt: PROMPT,
    });
  });

  it('show the temperature on the slider scale of 0.1 to 1', () => {
    expect(shownTemperature(0)).toBe(0.1);
    expect(shownTemperature(0.55)).toBe(0.6);
    expect(shownTemperature(2)).toBe(1);
    expect(shownTemperature(Number.NaN)).toBe(0.1);
  });

  it('read max tokens as a whole number, 0 for anything else', () => {
    expect(parseMaxTokens(512)).toBe(512);
    expect(parseMaxTokens('128')).toBe(128);
    expect(parseMaxTokens(12.9)).toBe(12);
    for (const v of [null, undefined, '', 'abc', -3, 0, Number.NaN]) expect(parseMaxTokens(v)).toBe(0);
  });
});

describe('groups and models', () => {
  const groups = { vip: { desc: 'VIP', ratio: 2 }, default: { desc: 'Default', ratio: 1 }, alpha: { desc: 'A', ratio: 0.5 } };

  it("put the user's own group first, then the others by name", () => {
    expect(groupChoices(groups, 'vip').map((g) => g.name)).toEqual(['vip', 'alpha', 'default']);
    expect(groupChoices(groups, 'default')[0]).toEqual({ name: 'default', desc: 'Default', ratio: 1 });
  });

  it('use the chosen group while it may be used, else the own one', () => {
    const choices = groupChoices(groups, 'default');
    expect(effectiveGroup('vip', choices, 'default')).toBe('vip');
    expect(effectiveGroup('', choices, 'default')).toBe('default');
    expect(effectiveGroup('gone', choices, 'default')).toBe('default');
    expect(effectiveGroup('gone', groupChoices({ alpha: groups.alpha }, 'default'), 'default')).toBe('alpha');
    expect(effectiveGroup('vip', [], 'default')).toBe('vip');
    expect(effectiveGroup('', [], 'default')).toBe('default');
  });

  it('keep the chosen model among the choices', () => {
    expect(modelChoices(['a', 'b', 'a'], 'b')).toEqual(['a', 'b']);
    expect(modelChoices(['a'], 'gpt-4o-mini')).toEqual(['gpt-4o-mini', 'a']);
  });
});
