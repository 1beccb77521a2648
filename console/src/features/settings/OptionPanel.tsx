import { Button, Card, Form, Space, Typography } from 'antd';
import type { IntlShape } from 'react-intl';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { api } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import type { Problem } from '../../shared/validation';
import { useUpdateOptionMutation } from './api';
import { FieldInput } from './FieldInput';
import { LogCleanup, OidcDiscovery, UpdateCheck } from './extras';
import type { OptionKey } from './fieldLabels';
import { fieldLabels } from './messages';
import { modelHints } from './model/messages';
import type { FieldDef, PanelDef, Values } from './panels';
import { ResetModelRatios } from './ratio/ResetModelRatios';
import { displayValue, planSave, saveOutcome } from './savePlan';
import { sendUpdates } from './sendUpdates';

function initialValues(panel: PanelDef, saved: Values): Values {
  return Object.fromEntries(panel.fields.map((f) => [f.key, f.kind === 'secret' ? '' : displayValue(f, saved[f.key] ?? '')]));
}

/** A problem naming an option key names it by its label instead. */
function labelled(intl: IntlShape, p: Problem): Problem {
  const name = p.values?.name;
  const label = typeof name === 'string' ? fieldLabels[name as OptionKey] : undefined;
  return label ? { ...p, values: { ...p.values, name: intl.formatMessage(label) } } : p;
}

/** Help under an input: the hint, and a JSON example with a button that copies it in. */
function FieldHelp({ field, onUse }: { field: FieldDef; onUse: (v: string) => void }) {
  const intl = useIntl();
  return (
    <Space orientation="vertical" size={0}>
      {field.hint && <span>{intl.formatMessage(field.hint)}</span>}
      {field.example && (
        <span>
          <Typography.Text code>{intl.formatMessage(modelHints.example, { example: field.example })}</Typography.Text>
          <Button
            type="link"
            size="small"
            onClick={() => onUse(JSON.stringify(JSON.parse(field.example ?? 'null'), null, 2))}
            data-testid={`example-${field.key}`}
          >
            {intl.formatMessage(modelHints.useExample)}
          </Button>
        </span>
      )}
    </Space>
  );
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
      reportProblem(intl, labelled(intl, plan.problem));
      return;
    }
    setBusy(true);
    const failed = await sendUpdates(plan.updates, (u) => update(u).unwrap());
    setBusy(false);
    toast[failed === 0 ? 'success' : 'error'](intl.formatMessage(saveOutcome(failed, plan.updates.length)));
    dispatch(api.util.invalidateTags(['Option', 'Status', 'Pricing', 'Models']));
  };

  return (
    <Card title={intl.formatMessage(panel.title)} size="small" data-testid={`panel-${panel.id}`}>
      <Form layout="vertical">
        {panel.fields.map((f) => (
          <Form.Item
            key={f.key}
            label={intl.formatMessage(fieldLabels[f.key])}
            extra={f.hint || f.example ? <FieldHelp field={f} onUse={(v) => set({ [f.key]: v })} /> : undefined}
            style={{ marginBottom: 12 }}
          >
            <FieldInput
              field={f}
              value={edited[f.key] ?? ''}
              onChange={(v) => set({ [f.key]: v })}
              disabled={f.enabledBy !== undefined && edited[f.enabledBy] !== 'true'}
            />
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
      {panel.extra === 'resetModelRatios' && (
        <div style={{ marginTop: 16 }}>
          <ResetModelRatios />
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
