/** A token key in the table: masked by default, with show/hide and copy buttons. */
import { CopyOutlined, EyeInvisibleOutlined, EyeOutlined } from '@ant-design/icons';
import { Button, Space, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { copyWithFallback } from '../../shared/clipboard';
import { columns as m, tokens } from './messages';
import { fullKey, maskKey } from './rules';

export function TokenKeyCell({ id, tokenKey }: { id: number; tokenKey: string }) {
  const intl = useIntl();
  const [shown, setShown] = useState(false);
  const key = fullKey(tokenKey);
  return (
    <Space size={2} style={{ whiteSpace: 'nowrap' }}>
      <Typography.Text code data-testid={`token-key-${id}`}>
        {shown ? key : maskKey(key)}
      </Typography.Text>
      <Tooltip title={intl.formatMessage(shown ? m.hideKey : m.showKey)}>
        <Button
          size="small"
          type="text"
          icon={shown ? <EyeInvisibleOutlined /> : <EyeOutlined />}
          onClick={() => setShown(!shown)}
          aria-label={intl.formatMessage(shown ? m.hideKey : m.showKey)}
          data-testid={`token-reveal-${id}`}
        />
      </Tooltip>
      <Tooltip title={intl.formatMessage(m.copyKey)}>
        <Button
          size="small"
          type="text"
          icon={<CopyOutlined />}
          onClick={() => void copyWithFallback(intl, key, intl.formatMessage(tokens.keyCopied))}
          aria-label={intl.formatMessage(m.copyKey)}
          data-testid={`token-copy-${id}`}
        />
      </Tooltip>
    </Space>
  );
}
