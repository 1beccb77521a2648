/** Advanced model picker: search and tick models from the upstream's list or the enabled models. */
import { Button, Checkbox, Empty, Flex, Input, Modal, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { picker as m } from './messages';

export interface PickerSource {
  /** Models offered (fetched from the upstream, else enabled on channels). */
  models: string[];
  fromUpstream: boolean;
}

function PickerBody({
  source,
  selected,
  onSave,
  onClose,
}: {
  source: PickerSource;
  selected: string[];
  onSave: (models: string[]) => void;
  onClose: () => void;
}) {
  const intl = useIntl();
  const [search, setSearch] = useState('');
  const [checked, setChecked] = useState<Set<string>>(() => new Set(selected));
  const shown = useMemo(
    () => source.models.filter((x) => x.toLowerCase().includes(search.trim().toLowerCase())),
    [source.models, search],
  );
  const setShown = (on: boolean) =>
    setChecked((prev) => {
      const next = new Set(prev);
      for (const x of shown) {
        if (on) next.add(x);
        else next.delete(x);
      }
      return next;
    });
  const save = () => {
    // Models the list does not offer stay as they were; offered ones follow the ticks.
    const kept = selected.filter((x) => !source.models.includes(x));
    onSave([...kept, ...source.models.filter((x) => checked.has(x))]);
    onClose();
  };
  return (
    <Modal
      open
      title={intl.formatMessage(m.title)}
      onCancel={onClose}
      onOk={save}
      width={640}
      okButtonProps={{ 'data-testid': 'picker-ok' }}
    >
      <Typography.Paragraph type="secondary">
        {intl.formatMessage(source.fromUpstream ? m.fromUpstream : m.fromEnabled)}
      </Typography.Paragraph>
      <Flex gap={8} style={{ marginBottom: 12 }}>
        <Input.Search
          allowClear
          placeholder={intl.formatMessage(m.search)}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          data-testid="picker-search"
        />
        <Button onClick={() => setShown(true)}>{intl.formatMessage(m.selectShown)}</Button>
        <Button onClick={() => setShown(false)}>{intl.formatMessage(m.clearShown)}</Button>
      </Flex>
      <div style={{ maxHeight: 360, overflowY: 'auto' }}>
        {shown.length === 0 ? (
          <Empty description={intl.formatMessage(m.empty)} />
        ) : (
          <Flex vertical gap={4}>
            {shown.map((x) => (
              <Checkbox
                key={x}
                checked={checked.has(x)}
                onChange={(e) =>
                  setChecked((prev) => {
                    const next = new Set(prev);
                    if (e.target.checked) next.add(x);
                    else next.delete(x);
                    return next;
                  })
                }
                data-testid={`picker-model-${x}`}
              >
                {x}
              </Checkbox>
            ))}
          </Flex>
        )}
      </div>
      <Typography.Text type="secondary">{intl.formatMessage(m.selectedCount, { count: checked.size })}</Typography.Text>
    </Modal>
  );
}

export function ModelPickerDialog({
  source,
  selected,
  onSave,
  onClose,
}: {
  source: PickerSource | null;
  selected: string[];
  onSave: (models: string[]) => void;
  onClose: () => void;
}) {
  return source ? <PickerBody source={source} selected={selected} onSave={onSave} onClose={onClose} /> : null;
}
