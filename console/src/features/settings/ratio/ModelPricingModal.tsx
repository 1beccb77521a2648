/** The visual editor's add/edit dialog: a fixed price, or the ratios with their per-1M-token prices. */
import { Alert, Form, Input, Modal } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { reportProblem } from '../../../shared/problem';
import { editor as m } from './messages';
import {
  EMPTY_ROW,
  editCompletionRatio,
  editInputPrice,
  editOutputPrice,
  editRatio,
  formFromRow,
  rowFromForm,
  type PriceForm,
} from './priceForm';
import { hasFixedPrice, validateModelForm, validateNumberCell, type PricingRow } from './rules';

interface Props {
  /** The row being edited, or null to add a model. */
  initial: PricingRow | null;
  /** The other models' names (a name must be new). */
  others: readonly string[];
  onOk: (row: PricingRow) => void;
  onCancel: () => void;
}

/** Mount it only while open: its state starts from `initial`. */
export function ModelPricingModal({ initial, others, onOk, onCancel }: Props) {
  const intl = useIntl();
  const [form, setForm] = useState<PriceForm>(() => formFromRow(initial ?? EMPTY_ROW));
  const fixed = hasFixedPrice(form);

  const submit = () => {
    const prices = fixed ? null : (validateNumberCell(form.inputPrice) ?? validateNumberCell(form.outputPrice));
    const row = rowFromForm(form);
    if (reportProblem(intl, prices ?? validateModelForm(row, others))) return;
    onOk(row);
  };

  const field = (key: keyof PriceForm, label: string, onChange: (v: string) => PriceForm, disabled = false) => (
    <Form.Item label={label} style={{ marginBottom: 12 }}>
      <Input
        value={form[key]}
        disabled={disabled}
        inputMode="decimal"
        onChange={(e) => setForm(onChange(e.target.value))}
        data-testid={`pricing-form-${key}`}
      />
    </Form.Item>
  );

  return (
    <Modal
      open
      title={initial ? intl.formatMessage(m.editTitle, { name: initial.name }) : intl.formatMessage(m.addTitle)}
      okText={intl.formatMessage(m.ok)}
      cancelText={intl.formatMessage(m.cancel)}
      onOk={submit}
      onCancel={onCancel}
      okButtonProps={{ 'data-testid': 'pricing-form-ok' }}
      destroyOnHidden
    >
      <Form layout="vertical">
        <Form.Item label={intl.formatMessage(m.name)} style={{ marginBottom: 12 }}>
          <Input
            value={form.name}
            disabled={initial !== null}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
            data-testid="pricing-form-name"
          />
        </Form.Item>
        <Alert type="info" showIcon title={intl.formatMessage(m.priceHint)} style={{ marginBottom: 12 }} />
        {field('price', intl.formatMessage(m.price), (price) => ({ ...form, price }))}
        <Alert type="info" showIcon title={intl.formatMessage(m.millionHint)} style={{ marginBottom: 12 }} />
        {field('ratio', intl.formatMessage(m.ratio), (v) => editRatio(form, v), fixed)}
        {field('completionRatio', intl.formatMessage(m.completionRatio), (v) => editCompletionRatio(form, v), fixed)}
        {field('inputPrice', intl.formatMessage(m.inputPrice), (v) => editInputPrice(form, v), fixed)}
        {field('outputPrice', intl.formatMessage(m.outputPrice), (v) => editOutputPrice(form, v), fixed)}
      </Form>
    </Modal>
  );
}
