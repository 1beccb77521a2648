import { describe, expect, it } from 'vitest';
import { errors, validation } from '../../shared/messages';
import { settings } from './messages';
import { OPERATION_PANELS, SYSTEM_PANELS, type PanelDef } from './panels';
import { planSave, saveOutcome } from './savePlan';

const panel = (id: string): PanelDef => [...SYSTEM_PANELS, ...OPERATION_PANELS].find((p) => p.id === id)!;

describe('settings save plan', () => {
  it('says nothing changed when nothing changed', () => {
    const saved = { ServerAddress: 'https://a.example.com' };
    const plan = planSave(panel('general'), saved, { ...saved });
    expect(plan).toEqual({ problem: { message: validation.nothingChanged } });
  });

  it('strips trailing slashes before comparing and sending', () => {
    const saved = { ServerAddress: 'https://a.example.com' };
    expect(planSave(panel('general'), saved, { ServerAddress: 'https://a.example.com/' })).toEqual({
      problem: { message: validation.nothingChanged },
    });
    expect(planSave(panel('general'), saved, { ServerAddress: 'https://b.example.com//' })).toEqual({
      updates: [{ key: 'ServerAddress', value: 'https://b.example.com' }],
    });
  });

  it('sends only changed keys, enabled flags first', () => {
    const saved = { CheckInEnabled: 'false', CheckInQuota: '10', CheckInMaxQuota: '20' };
    const plan = planSave(panel('checkIn'), saved, { CheckInEnabled: 'true', CheckInQuota: '10', CheckInMaxQuota: '30' });
    expect(plan).toEqual({
      updates: [
        { key: 'CheckInEnabled', value: 'true' },
        { key: 'CheckInMaxQuota', value: '30' },
      ],
    });
  });

  it('keeps empty secrets out (never returned by the server)', () => {
    const saved = { WorkerUrl: 'https://w' };
    expect(planSave(panel('worker'), saved, { WorkerUrl: 'https://w', WorkerValidKey: '' })).toEqual({
      problem: { message: validation.nothingChanged },
    });
    expect(planSave(panel('worker'), saved, { WorkerUrl: 'https://w', WorkerValidKey: 'k' })).toEqual({
      updates: [{ key: 'WorkerValidKey', value: 'k' }],
    });
  });

  it('applies minimums: check-in quota ≥ 0, minimum top-up ≥ 1', () => {
    const a = planSave(panel('checkIn'), { CheckInQuota: '0' }, { CheckInQuota: '-1' });
    expect('problem' in a && a.problem.message.id).toBe(validation.minValue.id);
    const b = planSave(panel('payment'), { ServerAddress: 'https://x', MinTopUp: '5' }, { MinTopUp: '0' });
    expect('problem' in b && b.problem.message.id).toBe(validation.minValue.id);
  });

  it('payment needs the saved server address and valid top-up group ratio JSON', () => {
    const a = planSave(panel('payment'), {}, { Price: '7.3' });
    expect('problem' in a && a.problem.message.id).toBe(validation.serverAddressFirst.id);
    const b = planSave(panel('payment'), { ServerAddress: 'https://x' }, { TopupGroupRatio: '{oops' });
    expect('problem' in b && b.problem.message.id).toBe(validation.invalidJson.id);
    const c = planSave(panel('payment'), { ServerAddress: 'https://x' }, { TopupGroupRatio: '{"vip": 2}' });
    expect(c).toEqual({ updates: [{ key: 'TopupGroupRatio', value: '{"vip": 2}' }] });
  });

  it('chat links must be valid JSON (spec 2 §5.1)', () => {
    const a = planSave(panel('chats'), { Chats: '[]' }, { Chats: '[{"Chat": ' });
    expect('problem' in a && a.problem.message.id).toBe(validation.invalidJson.id);
    const link = '[{"Chat":"https://chat.example/?key={key}"}]';
    expect(planSave(panel('chats'), { Chats: '[]' }, { Chats: link })).toEqual({ updates: [{ key: 'Chats', value: link }] });
  });

  it('rebate percentage between 0 and 100 when enabled', () => {
    const a = planSave(
      panel('rebate'),
      { RebateEnabled: 'false', RebatePercentage: '10' },
      { RebateEnabled: 'true', RebatePercentage: '150' },
    );
    expect('problem' in a && a.problem.message.id).toBe(validation.rebateRange.id);
  });
});

describe('save outcome messages (spec 1 §8)', () => {
  it('distinguishes success, one failed key, whole and partial failure', () => {
    expect(saveOutcome(0, 3)).toBe(settings.saved);
    expect(saveOutcome(1, 1)).toBe(errors.updateFailed);
    expect(saveOutcome(3, 3)).toBe(errors.saveFailed);
    expect(saveOutcome(1, 3)).toBe(errors.partialSaveFailed);
  });
});
