/**
 * A token key in the table: the masked key the list carries, with show/hide and copy buttons
 * that read the whole key from the server when pressed (it is never in the list).
 */
import { CopyOutlined, EyeInvisibleOutlined, EyeOutlined } from '@ant-design/icons';
import { Button, Flex, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { copyWithFallback } from '../../shared/clipboard';
import { useTokenKeys } from './api';
import { columns as m, tokens } from './messages';

export function TokenKeyCell({ id, maskedKey }: { id: number; maskedKey: string }) {
  const intl = useIntl();
  const readKeys = useTokenKeys();
  /** The whole key while shown; dropped again on hide. */
  const [shown, setShown] = useState<string | null>(null);
  const [busy, setBusy] = useState<'show' | 'copy' | null>(null);

  const readKey = async (action: 'show' | 'copy'): Promise<string | null> => {
    setBusy(action);
    try {
      return (await readKeys([id]))?.[0] ?? null;
    } finally {
      setBusy(null);
    }
  };

  const toggle = async () => {
    if (shown !== null) {
      setShown(null);
      return;
    }
    setShown(await readKey('show'));
  };

  const copy = async () => {
    const key = shown ?? (await readKey('copy'));
    if (key !== null) await copyWithFallback(intl, key, intl.formatMessage(tokens.keyCopied));
  };

  const toggleLabel = intl.formatMessage(shown !== null ? m.hideKey : m.showKey);
  return (
    // A shown key wraps inside the column, so the buttons stay beside it (and clickable).
    <Flex gap={2} align="center">
      <Typography.Text code style={{ wordBreak: 'break-all' }} data-testid={`token-key-${id}`}>
        {shown ?? maskedKey}
      </Typography.Text>
      <Tooltip title={toggleLabel}>
        <Button
          size="small"
          type="text"
          icon={shown !== null ? <EyeInvisibleOutlined /> : <EyeOutlined />}
          loading={busy === 'show'}
          onClick={() => void toggle()}
          aria-label={toggleLabel}
          data-testid={`token-reveal-${id}`}
        />
      </Tooltip>
      <Tooltip title={intl.formatMessage(m.copyKey)}>
        <Button
          size="small"
          type="text"
          icon={<CopyOutlined />}
          loading={busy === 'copy'}
          onClick={() => void copy()}
          aria-label={intl.formatMessage(m.copyKey)}
          data-testid={`token-copy-${id}`}
        />
      </Tooltip>
    </Flex>
  );
}
