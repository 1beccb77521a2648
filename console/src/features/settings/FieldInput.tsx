import { Input, InputNumber, Modal, Select, Switch } from 'antd';
import { useIntl } from 'react-intl';
import { EmailWhitelist } from './EmailWhitelist';
import { settings as m } from './messages';
import type { FieldDef } from './panels';

interface Props {
  field: FieldDef;
  value: string;
  onChange: (v: string) => void;
  disabled?: boolean;
}

/** One option's editor, chosen by its kind; values stay strings like the API's. */
export function FieldInput({ field, value, onChange, disabled }: Props) {
  const intl = useIntl();
  const testId = `option-${field.key}`;
  switch (field.kind) {
    case 'switch':
      return (
        <Switch
          checked={value === 'true'}
          disabled={disabled}
          data-testid={testId}
          onChange={(on) => {
            if (!on && field.confirmOff) {
              // Cancelling leaves the switch as it was (spec 1 §4).
              Modal.confirm({ title: intl.formatMessage(m.confirmPasswordLoginOff), onOk: () => onChange('false') });
              return;
            }
            onChange(String(on));
          }}
        />
      );
    case 'number':
      return (
        <InputNumber
          style={{ width: '100%', maxWidth: 320 }}
          min={field.min}
          max={field.max}
          step={field.step ?? 1}
          value={value === '' ? null : Number(value)}
          onChange={(n) => onChange(n === null ? '' : String(n))}
          disabled={disabled}
          data-testid={testId}
        />
      );
    case 'secret':
      return (
        <Input.Password
          value={value}
          autoComplete="off"
          placeholder={intl.formatMessage(m.secretHint)}
          onChange={(e) => onChange(e.target.value)}
          disabled={disabled}
          data-testid={testId}
        />
      );
    case 'textarea':
    case 'json':
      return (
        <Input.TextArea
          value={value}
          autoSize={{ minRows: 3, maxRows: 12 }}
          style={field.kind === 'json' ? { fontFamily: 'monospace' } : undefined}
          onChange={(e) => onChange(e.target.value)}
          disabled={disabled}
          data-testid={testId}
        />
      );
    case 'granularity':
      return (
        <Select
          style={{ width: 200 }}
          value={value || 'hour'}
          onChange={onChange}
          options={[
            { value: 'hour', label: intl.formatMessage(m.granularityHour) },
            { value: 'day', label: intl.formatMessage(m.granularityDay) },
            { value: 'week', label: intl.formatMessage(m.granularityWeek) },
          ]}
          disabled={disabled}
          data-testid={testId}
        />
      );
    case 'whitelist':
      return <EmailWhitelist value={value} onChange={onChange} />;
    case 'text':
      return <Input value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled} data-testid={testId} />;
  }
}
