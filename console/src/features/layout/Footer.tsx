import { Layout, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useIntl } from 'react-intl';
import { FOOTER_POLL_INTERVAL_MS, FOOTER_POLL_TIMES } from '../../shared/constants';
import { sanitizeHtml } from '../../shared/sanitize';
import { readString, STORAGE_KEY } from '../../shared/storage';
import { useStatus } from '../status/useStatus';
import { footer as m } from './messages';

/** Reads the stored footer HTML, polling a few times while the status loads (spec 3 §9). */
function useFooterHtml(live: string | undefined): string {
  const [stored, setStored] = useState(() => readString(STORAGE_KEY.footerHtml) ?? '');
  useEffect(() => {
    let n = 0;
    const timer = window.setInterval(() => {
      n += 1;
      const v = readString(STORAGE_KEY.footerHtml) ?? '';
      setStored(v);
      if (v || n >= FOOTER_POLL_TIMES) window.clearInterval(timer);
    }, FOOTER_POLL_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, []);
  return live ?? stored;
}

export function AppFooter() {
  const intl = useIntl();
  const { status } = useStatus();
  const html = useFooterHtml(status.footer_html);
  return (
    <Layout.Footer style={{ textAlign: 'center', padding: '12px 16px' }} data-testid="footer">
      {html ? (
        <div className="custom-footer" dangerouslySetInnerHTML={{ __html: sanitizeHtml(html) }} />
      ) : (
        <Typography.Text type="secondary">
          {intl.formatMessage(m.credits, {
            name: status.system_name || 'AI Gateway',
            version: status.version ?? '',
          })}
        </Typography.Text>
      )}
    </Layout.Footer>
  );
}
