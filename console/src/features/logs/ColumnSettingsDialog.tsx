/** The column settings dialog (spec 3 §2.2): a checkbox per column, select all and reset; saved locally. */
import { Button, Checkbox, Flex, Modal } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { columnDialog as m, columns } from './messages';
import { allColumns, choosableColumns, DEFAULT_LOG_COLUMNS, type LogColumnVisibility } from './prefs';

interface Props {
  admin: boolean;
  value: LogColumnVisibility;
  onSave: (v: LogColumnVisibility) => void;
  onClose: () => void;
}

/** Mounted while open, so each opening starts from the saved choice. */
function Body({ admin, value, onSave, onClose }: Props) {
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
          <Button onClick={() => setDraft(allColumns(draft, admin))} data-testid="logs-columns-all">
            {intl.formatMessage(m.selectAll)}
          </Button>
          <Button onClick={() => setDraft(DEFAULT_LOG_COLUMNS)} data-testid="logs-columns-reset">
            {intl.formatMessage(m.reset)}
          </Button>
          <CancelBtn />
          <OkBtn />
        </>
      )}
    >
      <Flex wrap gap={12}>
        {choosableColumns(admin).map((k) => (
          <Checkbox
            key={k}
            checked={draft[k]}
            onChange={(e) => setDraft({ ...draft, [k]: e.target.checked })}
            data-testid={`logs-column-${k}`}
          >
            {intl.formatMessage(columns[k])}
          </Checkbox>
        ))}
      </Flex>
    </Modal>
  );
}

export function ColumnSettingsDialog({ open, ...props }: Props & { open: boolean }) {
  return open ? <Body {...props} /> : null;
}
