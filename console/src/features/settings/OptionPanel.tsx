import { Button, Card, Form } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { api } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { useUpdateOptionMutation } from './api';
import { FieldInput } from './FieldInput';
import { LogCleanup, OidcDiscovery, UpdateCheck } from './extras';
import { fieldLabels } from './messages';
import type { PanelDef, Values } from './panels';
import { planSave, saveOutcome, splitFlags } from './savePlan';

function initialValues(panel: PanelDef, saved: Values): Values {
  return Object.fromEntries(panel.fields.map((f) => [f.key, f.kind === 'secret' ? '' : (saved[f.key] ?? '')]));
}

/** Sends the updates (flags one by one first) and answers how many failed. */
async function sendUpdates(
  updates: { key: string; value: string }[],
  put: (u: { key: string; value: string }) => Promise<unknown>,
): Promise<number> {
  const { flags, rest } = splitFlags(updates);
  let failed = 0;
  for (const u of flags) {
    await put(u).catch(() => (failed += 1));
  }
  const results = await Promise.allSettled(rest.map(put));
  return failed + results.filter((r) => r.status === 'rejected').length;
}

/** A settings panel: edits its option keys and saves only the changed ones. */
export function OptionPanel({ panel, saved }: { panel: PanelDef; saved: Values }) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const [edited, setEdited] = useState<Values>(() => initialValues(panel, saved));
  const [update] = useUpdateOptionMutation();
  const [busy, setBusy] = useState(false);
  const set = (patch: Values) => setEdited((e) => ({ ...e, ...patch }));

  const save = async () => {
    const plan = planSave(panel, saved, edited);
    if ('problem' in plan) {
      reportProblem(intl, plan.problem);
      return;
    }
    setBusy(true);
    const failed = await sendUpdates(plan.updates, (u) => update(u).unwrap());
    setBusy(false);
    toast[failed === 0 ? 'success' : 'error'](intl.formatMessage(saveOutcome(failed, plan.updates.length)));
    dispatch(api.util.invalidateTags(['Option', 'Status']));
  };

  return (
    <Card title={intl.formatMessage(panel.title)} size="small" data-testid={`panel-${panel.id}`}>
      <Form layout="vertical">
        {panel.fields.map((f) => (
          <Form.Item key={f.key} label={intl.formatMessage(fieldLabels[f.key])} style={{ marginBottom: 12 }}>
            <FieldInput field={f} value={edited[f.key] ?? ''} onChange={(v) => set({ [f.key]: v })} />
          </Form.Item>
        ))}
      </Form>
      {panel.extra === 'oidcDiscovery' && (
        <div style={{ marginBottom: 12 }}>
          <OidcDiscovery edited={edited} onFill={set} />
        </div>
      )}
      <Button type="primary" onClick={save} loading={busy} data-testid={`save-${panel.id}`}>
        {intl.formatMessage(common.save)}
      </Button>
      {panel.extra === 'logCleanup' && (
        <div style={{ marginTop: 16 }}>
          <LogCleanup />
        </div>
      )}
      {panel.extra === 'updateCheck' && (
        <div style={{ marginTop: 16 }}>
          <UpdateCheck />
        </div>
      )}
    </Card>
  );
}
