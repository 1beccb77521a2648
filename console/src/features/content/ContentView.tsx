/**
 * Shows one content option of the operator: a page of another site in a sandboxed frame, or
 * markdown/HTML rendered and sanitized (rules.ts). Empty content is the caller's business.
 */
import { ExportOutlined } from '@ant-design/icons';
import { Card, Flex, Typography } from 'antd';
import { useMemo } from 'react';
import { useIntl } from 'react-intl';
import { content as m } from './messages';
import { renderMarkdown, type ContentKind } from './rules';
import './content.css';

/**
 * Scripts may run in the framed page, but in an opaque origin (no `allow-same-origin`): it reads
 * no cookie or storage of this site and cannot reach this page. No top navigation, no forms;
 * links may open new tabs, outside the sandbox.
 */
export const FRAME_SANDBOX = 'allow-scripts allow-popups allow-popups-to-escape-sandbox';

export function ContentFrame({ url, testId }: { url: string; testId: string }) {
  const intl = useIntl();
  return (
    <Flex vertical gap={4} style={{ height: 'calc(100vh - 150px)', minHeight: 400 }}>
      <Typography.Link href={url} target="_blank" rel="noopener noreferrer" style={{ alignSelf: 'flex-end', fontSize: 12 }}>
        {intl.formatMessage(m.openInNewTab)} <ExportOutlined />
      </Typography.Link>
      <iframe
        src={url}
        title={intl.formatMessage(m.frameTitle)}
        sandbox={FRAME_SANDBOX}
        referrerPolicy="no-referrer"
        style={{ flex: 1, width: '100%', border: 0, borderRadius: 8 }}
        data-testid={`${testId}-frame`}
      />
    </Flex>
  );
}

export function MarkdownContent({ text, testId }: { text: string; testId: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return (
    <Card style={{ maxWidth: 1000, margin: '0 auto', width: '100%' }} styles={{ body: { padding: 'clamp(12px, 3vw, 24px)' } }}>
      <Typography>
        <div className="operator-content" dangerouslySetInnerHTML={{ __html: html }} data-testid={`${testId}-markdown`} />
      </Typography>
    </Card>
  );
}

/** The content of a non-empty option (`kind` is `url` or `markdown`). */
export function ContentView({ content, testId }: { content: Exclude<ContentKind, { kind: 'empty' }>; testId: string }) {
  return content.kind === 'url' ? (
    <ContentFrame url={content.url} testId={testId} />
  ) : (
    <MarkdownContent text={content.text} testId={testId} />
  );
}
