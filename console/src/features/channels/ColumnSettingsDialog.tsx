/** The column settings dialog: which optional columns the channel table shows (kept in localStorage). */
import { Button, Checkbox, Flex, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { columnDialog as m, columns } from './messages';
import { COLUMN_KEYS, DEFAULT_COLUMNS, type ColumnVisibility } from './prefs';

interface Props {
  value: ColumnVisibility;
  onSave: (v: ColumnVisibility) => void;
  onClose: () => void;
}

/** Mounted while open, so each opening starts from the saved choice. */
function ColumnSettingsBody({ value, onSave, onClose }: Props) {
  const intl = useIntl();
  const [draft, setDraft] = useState(value);
  return (
    <Modal
      open
      title={intl.formatMessage(m.title)}
      onCancel={onClose}
      onOk={() => {
        onSave(draft);
        onClose();
      }}
      footer={(_, { OkBtn, CancelBtn }) => (
        <>
          <Button onClick={() => setDraft(DEFAULT_COLUMNS)} data-testid="columns-reset">
            {intl.formatMessage(m.reset)}
          </Button>
          <CancelBtn />
          <OkBtn />
        </>
      )}
    >
      <Typography.Paragraph type="secondary">{intl.formatMessage(m.hint)}</Typography.Paragraph>
      <Flex wrap gap={12}>
        {COLUMN_KEYS.map((k) => (
          <Checkbox
            key={k}
            checked={draft[k]}
            onChange={(e) => setDraft({ ...draft, [k]: e.target.checked })}
            data-testid={`column-toggle-${k}`}
          >
            {intl.formatMessage(columns[k])}
          </Checkbox>
        ))}
      </Flex>
    </Modal>
  );
}

export function ColumnSettingsDialog({ open, ...props }: Props & { open: boolean }) {
  return open ? <ColumnSettingsBody {...props} /> : null;
}
