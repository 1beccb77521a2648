import { Alert, Col, Row, Spin, Tabs } from 'antd';
import { useIntl } from 'react-intl';
import { useSearchParams } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { isRoot } from '../../shared/constants';
import { NotAvailablePage } from '../placeholder/NotAvailablePage';
import { useGetOptionsQuery } from './api';
import { tabs as m } from './messages';
import { OptionPanel } from './OptionPanel';
import { OPERATION_PANELS, OTHER_PANELS, SYSTEM_PANELS, type PanelDef, type Values } from './panels';

const TAB_KEYS = ['operation', 'rateLimit', 'model', 'system', 'other'] as const;
type TabKey = (typeof TAB_KEYS)[number];

function PanelGrid({ panels, saved }: { panels: PanelDef[]; saved: Values }) {
  return (
    <Row gutter={[16, 16]}>
      {panels.map((p) => {
        // Re-mount a panel when its saved values change (after a save and refetch).
        const version = p.fields.map((f) => saved[f.key] ?? '').join('\u0000');
        return (
          <Col key={p.id} xs={24} xl={12}>
            <OptionPanel key={version} panel={p} saved={saved} />
          </Col>
        );
      })}
    </Row>
  );
}

/** /setting: tabbed settings for the super administrator (spec 2 §2.1). */
export function SettingsPage() {
  const intl = useIntl();
  const user = useCurrentUser();
  const [params, setParams] = useSearchParams();
  const root = isRoot(user?.role);
  const { data: saved, isLoading } = useGetOptionsQuery(undefined, { skip: !root });
  if (!root) return <Alert type="info" title={intl.formatMessage(m.rootOnly)} />;
  if (isLoading || !saved) return <Spin />;
  const tab = (TAB_KEYS as readonly string[]).includes(params.get('tab') ?? '') ? (params.get('tab') as TabKey) : 'operation';
  const items = [
    { key: 'operation', label: intl.formatMessage(m.operation), children: <PanelGrid panels={OPERATION_PANELS} saved={saved} /> },
    { key: 'rateLimit', label: intl.formatMessage(m.rateLimit), children: <NotAvailablePage name={m.rateLimit} /> },
    { key: 'model', label: intl.formatMessage(m.model), children: <NotAvailablePage name={m.model} /> },
    { key: 'system', label: intl.formatMessage(m.system), children: <PanelGrid panels={SYSTEM_PANELS} saved={saved} /> },
    { key: 'other', label: intl.formatMessage(m.other), children: <PanelGrid panels={OTHER_PANELS} saved={saved} /> },
  ];
  return <Tabs activeKey={tab} items={items} onChange={(k) => setParams({ tab: k })} destroyOnHidden />;
}
