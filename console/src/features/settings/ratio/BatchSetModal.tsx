/** The unset-models batch set dialog: one price, one ratio, or both ratios for the selected models. */
import { Form, Input, Modal, Radio } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { reportProblem } from '../../../shared/problem';
import { editor, unset as m } from './messages';
import { validateBatch, type BatchInput, type BatchMode } from './rules';

interface Props {
  selected: number;
  onOk: (b: BatchInput) => void;
  onCancel: () => void;
}

/** Mount it only while open. */
export function BatchSetModal({ selected, onOk, onCancel }: Props) {
  const intl = useIntl();
  const [b, setB] = useState<BatchInput>({ mode: 'ratio', value: '', completionRatio: '' });
  const submit = () => {
    if (reportProblem(intl, validateBatch(selected, b))) return;
    onOk(b);
  };
  const valueLabel = b.mode === 'price' ? editor.price : editor.ratio;
  return (
    <Modal
      open
      title={intl.formatMessage(m.batchTitle, { count: selected })}
      okText={intl.formatMessage(editor.ok)}
      cancelText={intl.formatMessage(editor.cancel)}
      onOk={submit}
      onCancel={onCancel}
      okButtonProps={{ 'data-testid': 'batch-ok' }}
    >
      <Form layout="vertical">
        <Form.Item label={intl.formatMessage(m.mode)} style={{ marginBottom: 12 }}>
          <Radio.Group
            value={b.mode}
            onChange={(e) => setB({ ...b, mode: e.target.value as BatchMode })}
            data-testid="batch-mode"
            options={[
              { value: 'price', label: intl.formatMessage(m.modePrice) },
              { value: 'ratio', label: intl.formatMessage(m.modeRatio) },
              { value: 'ratioAndCompletion', label: intl.formatMessage(m.modeBoth) },
            ]}
          />
        </Form.Item>
        <Form.Item label={intl.formatMessage(valueLabel)} style={{ marginBottom: 12 }}>
          <Input
            value={b.value}
            inputMode="decimal"
            onChange={(e) => setB({ ...b, value: e.target.value })}
            data-testid="batch-value"
          />
        </Form.Item>
        {b.mode === 'ratioAndCompletion' && (
          <Form.Item label={intl.formatMessage(editor.completionRatio)} style={{ marginBottom: 12 }}>
            <Input
              value={b.completionRatio}
              inputMode="decimal"
              onChange={(e) => setB({ ...b, completionRatio: e.target.value })}
              data-testid="batch-completion"
            />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}
