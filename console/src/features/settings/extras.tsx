import { Button, DatePicker, Popconfirm, Space, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { isApiError } from '../../shared/apiError';
import { toast } from '../../shared/feedback';
import { validation } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { validateLogCleanup, validateWellKnownUrl } from '../../shared/validation';
import { useStatus } from '../status/useStatus';
import { useDeleteLogsMutation } from './api';
import { settings as m } from './messages';
import type { Values } from './panels';

/** Fetches the OIDC discovery document and fills the three endpoints. */
export function OidcDiscovery({ edited, onFill }: { edited: Values; onFill: (v: Values) => void }) {
  const intl = useIntl();
  const [busy, setBusy] = useState(false);
  const discover = async () => {
    const url = edited['oidc.well_known'] ?? '';
    if (reportProblem(intl, validateWellKnownUrl(url))) return;
    setBusy(true);
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const doc = (await res.json()) as Record<string, string>;
      onFill({
        'oidc.authorization_endpoint': doc.authorization_endpoint ?? '',
        'oidc.token_endpoint': doc.token_endpoint ?? '',
        'oidc.user_info_endpoint': doc.userinfo_endpoint ?? '',
      });
      toast.success(intl.formatMessage(m.oidcDiscovered));
    } catch (e) {
      toast.error(intl.formatMessage(validation.wellKnownFetchFailed, { message: e instanceof Error ? e.message : String(e) }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button onClick={discover} loading={busy}>
      {intl.formatMessage(m.oidcDiscover)}
    </Button>
  );
}

/** Deletes logs older than the chosen time (default: one month ago). */
export function LogCleanup() {
  const intl = useIntl();
  const [time, setTime] = useState<Dayjs | null>(() => dayjs().subtract(1, 'month'));
  const [clean, { isLoading }] = useDeleteLogsMutation();
  const run = async () => {
    if (reportProblem(intl, validateLogCleanup(time?.unix()))) return;
    try {
      const count = await clean(time!.unix()).unwrap();
      toast.success(intl.formatMessage(m.logCleared, { count: Number(count) || 0 }));
    } catch (e) {
      toast.error(intl.formatMessage(m.logCleanupFailed, { message: isApiError(e) ? e.message : String(e) }));
    }
  };
  return (
    <Space wrap>
      <DatePicker showTime value={time} onChange={setTime} />
      <Popconfirm title={intl.formatMessage(m.logCleanupConfirm)} onConfirm={run}>
        <Button danger loading={isLoading}>
          {intl.formatMessage(m.logCleanup)}
        </Button>
      </Popconfirm>
    </Space>
  );
}

const RELEASES_URL: string | undefined = import.meta.env.VITE_RELEASES_URL;

/** Compares the running version with the latest release of the configured feed. */
export function UpdateCheck() {
  const intl = useIntl();
  const { status } = useStatus();
  const [latest, setLatest] = useState<string>();
  const [busy, setBusy] = useState(false);
  const check = async () => {
    if (!RELEASES_URL) return;
    setBusy(true);
    try {
      const res = await fetch(RELEASES_URL);
      if (!res.ok) throw new Error(String(res.status));
      const body = (await res.json()) as { tag_name?: string };
      setLatest(body.tag_name ?? '');
      if (body.tag_name === status.version) toast.success(intl.formatMessage(m.updateUpToDate));
    } catch {
      toast.error(intl.formatMessage(m.updateFailed));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Space orientation="vertical">
      <Typography.Text>{intl.formatMessage(m.updateCurrent, { version: status.version ?? '' })}</Typography.Text>
      {latest && <Typography.Text>{intl.formatMessage(m.updateLatest, { version: latest })}</Typography.Text>}
      {RELEASES_URL ? (
        <Button onClick={check} loading={busy}>
          {intl.formatMessage(m.updateCheck)}
        </Button>
      ) : (
        <Typography.Text type="secondary">{intl.formatMessage(m.updateNotConfigured)}</Typography.Text>
      )}
    </Space>
  );
}
