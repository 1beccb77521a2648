/**
 * A token row's chat action: "Chat" opens the first chat link with this token's whole key
 * and the server address in a new tab; the arrow lists every entry of `Chats`.
 */
import { DownOutlined, MessageOutlined } from '@ant-design/icons';
import { Button, Dropdown, Space } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { useTokenKeys } from '../tokens/api';
import { openChatTab } from './leave';
import { chat as m, tokenChat as tm } from './messages';
import { chatUrl, type ChatLink } from './rules';
import { useChatLinks } from './useChatLinks';

export function TokenChatButton({ tokenId }: { tokenId: number }) {
  const intl = useIntl();
  const { chats, address } = useChatLinks();
  const readKeys = useTokenKeys();
  const [busy, setBusy] = useState(false);

  const open = async (chat: ChatLink | undefined) => {
    if (chats === null) return toast.error(intl.formatMessage(m.configError));
    if (!chat) return toast.error(intl.formatMessage(m.notConfigured));
    setBusy(true);
    const keys = await readKeys([tokenId]).finally(() => setBusy(false));
    const key = keys?.[0];
    if (!key) return;
    const url = chatUrl(chat, key, address, window.location.origin);
    if (!url) return toast.error(intl.formatMessage(m.configError));
    openChatTab(url);
  };

  const list = chats ?? [];
  return (
    <Space.Compact size="small">
      <Button
        size="small"
        icon={<MessageOutlined />}
        loading={busy}
        onClick={() => void open(list[0])}
        data-testid={`token-chat-${tokenId}`}
      >
        {intl.formatMessage(tm.chat)}
      </Button>
      <Dropdown
        trigger={['click']}
        disabled={list.length === 0}
        menu={{
          items: list.map((c, i) => ({ key: String(i), label: c.name, 'data-testid': `token-chat-${tokenId}-${i}` })),
          onClick: ({ key }) => void open(list[Number(key)]),
        }}
      >
        <Button
          size="small"
          icon={<DownOutlined />}
          aria-label={intl.formatMessage(tm.more)}
          data-testid={`token-chat-menu-${tokenId}`}
        />
      </Dropdown>
    </Space.Compact>
  );
}
