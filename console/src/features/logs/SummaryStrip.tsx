/** The summary strip over the filtered records (spec 3 §2.2): quota, tokens, RPM and TPM from the stat endpoint. */
import { Card, Flex, Statistic } from 'antd';
import { useIntl } from 'react-intl';
import type { QuotaDisplay } from '../../shared/quota';
import { summary as m } from './messages';
import { summaryQuotaText } from './rules';
import type { LogStats } from './types';

export function SummaryStrip({
  stats,
  loading,
  display,
}: {
  stats: LogStats | undefined;
  loading: boolean;
  display: QuotaDisplay;
}) {
  const intl = useIntl();
  const items = [
    { key: 'quota', title: m.quota, value: stats ? summaryQuotaText(stats.quota, display) : '-' },
    { key: 'tokens', title: m.tokens, value: stats ? String(stats.tokens) : '-' },
    { key: 'prompt', title: m.promptTokens, value: stats ? String(stats.prompt_tokens) : '-' },
    { key: 'completion', title: m.completionTokens, value: stats ? String(stats.completion_tokens) : '-' },
    { key: 'rpm', title: m.rpm, value: stats ? String(stats.rpm) : '-' },
    { key: 'tpm', title: m.tpm, value: stats ? String(stats.tpm) : '-' },
  ];
  return (
    <Flex gap={12} wrap style={{ marginBottom: 16 }} data-testid="logs-summary">
      {items.map((i) => (
        <Card key={i.key} size="small" style={{ flex: '1 1 96px' }}>
          <Statistic
            loading={loading}
            title={intl.formatMessage(i.title)}
            value={i.value}
            data-testid={`logs-summary-${i.key}`}
            data-quota={i.key === 'quota' ? stats?.quota : undefined}
          />
        </Card>
      ))}
    </Flex>
  );
}
