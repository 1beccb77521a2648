/** One message of the conversation: a question as typed, or an answer as sanitized markdown with its state and usage. */
import { CopyOutlined, RobotOutlined, UserOutlined } from '@ant-design/icons';
import { Alert, Avatar, Button, Flex, Spin, Tag, Tooltip, Typography, theme } from 'antd';
import { useMemo } from 'react';
import { useIntl, type IntlShape } from 'react-intl';
import { copyWithFallback } from '../../shared/clipboard';
import { renderMarkdown } from '../content/rules';
import { chat as m } from './messages';
import type { ChatMessage, MessageError } from './types';

/** The text of an answer's error: the gateway's message when it sent one. */
export function errorText(intl: IntlShape, e: MessageError): string {
  switch (e.kind) {
    case 'gateway':
      return e.message || intl.formatMessage(m.errorStatus, { status: e.status ?? '?' });
    case 'network':
      return intl.formatMessage(m.errorNetwork);
    case 'cut':
      return intl.formatMessage(m.errorCut);
    case 'interrupted':
      return intl.formatMessage(m.errorInterrupted);
  }
}

function Answer({ message, index }: { message: ChatMessage; index: number }) {
  const intl = useIntl();
  const { token } = theme.useToken();
  const html = useMemo(() => renderMarkdown(message.content), [message.content]);
  const { status, usage } = message;
  return (
    <Flex gap={8} align="start" data-testid={`pg-message-${index}`} data-role="assistant" data-status={status}>
      <Avatar size="small" icon={<RobotOutlined />} style={{ background: token.colorPrimary, flexShrink: 0, marginTop: 4 }} />
      <Flex vertical gap={4} style={{ minWidth: 0, maxWidth: 'min(100%, 860px)', flex: '0 1 auto' }}>
        <div
          style={{
            background: token.colorFillQuaternary,
            border: `1px solid ${token.colorBorderSecondary}`,
            borderRadius: token.borderRadiusLG,
            padding: '8px 12px',
            minWidth: 0,
          }}
        >
          {status === 'loading' && (
            <Flex gap={8} align="center" data-testid="pg-loading">
              <Spin size="small" />
              <Typography.Text type="secondary">{intl.formatMessage(m.thinking)}</Typography.Text>
            </Flex>
          )}
          {message.content !== '' && (
            <div className="pg-markdown" dangerouslySetInnerHTML={{ __html: html }} data-testid="pg-answer" />
          )}
          {status === 'incomplete' && <span className="pg-cursor" role="status" aria-label={intl.formatMessage(m.writing)} />}
          {status === 'error' && message.error && (
            <Alert
              type="error"
              showIcon
              style={{ marginTop: message.content ? 8 : 0 }}
              title={intl.formatMessage(m.failed)}
              description={errorText(intl, message.error)}
              data-testid="pg-error"
            />
          )}
        </div>
        {(status === 'complete' || status === 'error') && (
          <Flex gap={8} align="center" wrap>
            {usage && (
              <Typography.Text
                type="secondary"
                style={{ fontSize: 12 }}
                data-testid="pg-usage"
                data-prompt={usage.prompt_tokens}
                data-completion={usage.completion_tokens}
                data-total={usage.total_tokens}
              >
                {intl.formatMessage(m.usage, {
                  prompt: usage.prompt_tokens,
                  completion: usage.completion_tokens,
                  total: usage.total_tokens,
                })}
              </Typography.Text>
            )}
            {message.stopped && (
              <Tag color="warning" data-testid="pg-stopped">
                {intl.formatMessage(m.stopped)}
              </Tag>
            )}
            {message.content !== '' && (
              <Tooltip title={intl.formatMessage(m.copy)}>
                <Button
                  type="text"
                  size="small"
                  icon={<CopyOutlined />}
                  aria-label={intl.formatMessage(m.copy)}
                  onClick={() => void copyWithFallback(intl, message.content)}
                />
              </Tooltip>
            )}
          </Flex>
        )}
      </Flex>
    </Flex>
  );
}

function Question({ message, index }: { message: ChatMessage; index: number }) {
  const { token } = theme.useToken();
  return (
    <Flex
      gap={8}
      align="start"
      justify="flex-end"
      data-testid={`pg-message-${index}`}
      data-role="user"
      data-status={message.status}
    >
      <div
        style={{
          background: token.colorPrimaryBg,
          border: `1px solid ${token.colorPrimaryBorder}`,
          borderRadius: token.borderRadiusLG,
          padding: '8px 12px',
          maxWidth: 'min(85%, 720px)',
          whiteSpace: 'pre-wrap',
          overflowWrap: 'anywhere',
          color: token.colorText,
        }}
        data-testid="pg-question"
      >
        {message.content}
      </div>
      <Avatar size="small" icon={<UserOutlined />} style={{ background: token.colorTextTertiary, flexShrink: 0, marginTop: 4 }} />
    </Flex>
  );
}

export function MessageView({ message, index }: { message: ChatMessage; index: number }) {
  return message.role === 'user' ? <Question message={message} index={index} /> : <Answer message={message} index={index} />;
}
