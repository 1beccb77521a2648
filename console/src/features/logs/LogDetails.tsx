/** The expanded row: every detail the record carries (spec 3 §2.2), long texts collapsible. */
import { Descriptions, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useIsMobile } from '../../shared/useIsMobile';
import { shownText } from './columns';
import { details as m } from './messages';
import { logDetails } from './rules';
import type { LogRow } from './row';

export function LogDetails({ row, admin }: { row: LogRow; admin: boolean }) {
  const intl = useIntl();
  const mobile = useIsMobile();
  const items = logDetails(row, row.parsed, admin);
  return (
    <Descriptions
      size="small"
      bordered
      layout={mobile ? 'vertical' : 'horizontal'}
      column={{ xs: 1, sm: 1, md: 2, lg: 3 }}
      title={intl.formatMessage(m.title)}
      data-testid={`log-details-${row.id}`}
      items={items.map((d) => {
        const text = shownText(intl, d.value);
        return {
          key: d.key,
          label: intl.formatMessage(m[d.key]),
          span: d.long || d.hint ? 'filled' : 1,
          children: (
            <div data-testid={`log-detail-${d.key}`}>
              {d.long ? (
                <Typography.Paragraph
                  style={{ marginBottom: 0, whiteSpace: 'pre-wrap' }}
                  ellipsis={{ rows: 3, expandable: 'collapsible', symbol: (open) => (open ? '▲' : intl.formatMessage(m.more)) }}
                >
                  {text}
                </Typography.Paragraph>
              ) : (
                <Typography.Text style={{ wordBreak: 'break-all' }}>{text}</Typography.Text>
              )}
              {d.hint && (
                <Typography.Paragraph type="secondary" style={{ marginBottom: 0, fontSize: 12 }}>
                  {intl.formatMessage(d.hint)}
                </Typography.Paragraph>
              )}
            </div>
          ),
        };
      })}
    />
  );
}
