import { Alert, Col, Row, Spin, Tabs } from 'antd';
import type { ReactNode } from 'react';
import { useIntl } from 'react-intl';
import { useSearchParams } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { isRoot } from '../../shared/constants';
import { useGetOptionsQuery } from './api';
import { tabs as m } from './messages';
import { MODEL_PANELS, RATE_LIMIT_PANELS } from './model/panels';
import { OptionPanel } from './OptionPanel';
import { OPERATION_PANELS, OTHER_PANELS, SYSTEM_PANELS, type PanelDef, type Values } from './panels';
import { RATIO_JSON_PANEL } from './ratio/jsonPanel';
import { subTabs as sm } from './ratio/messages';
import { PRICING_KEYS } from './ratio/rules';
import { UnsetModels } from './ratio/UnsetModels';
import { VisualRatioEditor } from './ratio/VisualRatioEditor';

const TAB_KEYS = ['operation', 'rateLimit', 'model', 'system', 'other'] as const;
type TabKey = (typeof TAB_KEYS)[number];

/** Sub-tabs of the operation tab (spec 2 §2.1), chosen by the query parameter `sub`. */
const SUB_TAB_KEYS = ['general', 'ratios', 'visual', 'unset'] as const;
type SubTabKey = (typeof SUB_TAB_KEYS)[number];

function pick<K extends string>(keys: readonly K[], value: string | null, fallback: K): K {
  return (keys as readonly string[]).includes(value ?? '') ? (value as K) : fallback;
}

/** A panel's key: re-mounts it when its saved values change (after a save and refetch). */
const versionOf = (keys: readonly string[], saved: Values) => keys.map((k) => saved[k] ?? '').join('\u0000');

function PanelGrid({ panels, saved, wide = false }: { panels: PanelDef[]; saved: Values; wide?: boolean }) {
  return (
    <Row gutter={[16, 16]}>
      {panels.map((p) => (
        <Col key={p.id} xs={24} xl={wide ? 24 : 12}>
          <OptionPanel
            key={versionOf(
              p.fields.map((f) => f.key),
              saved,
            )}
            panel={p}
            saved={saved}
          />
        </Col>
      ))}
    </Row>
  );
}

/** Sub-tabs stay mounted once opened, so unsaved edits survive a look at another sub-tab. */
function OperationTab({ saved }: { saved: Values }) {
  const intl = useIntl();
  const [params, setParams] = useSearchParams();
  const sub = pick(SUB_TAB_KEYS, params.get('sub'), 'general');
  const pricingVersion = versionOf(PRICING_KEYS, saved);
  const items: { key: SubTabKey; label: string; children: ReactNode }[] = [
    { key: 'general', label: intl.formatMessage(sm.general), children: <PanelGrid panels={OPERATION_PANELS} saved={saved} /> },
    {
      key: 'ratios',
      label: intl.formatMessage(sm.ratios),
      children: <PanelGrid panels={[RATIO_JSON_PANEL]} saved={saved} wide />,
    },
    { key: 'visual', label: intl.formatMessage(sm.visual), children: <VisualRatioEditor key={pricingVersion} saved={saved} /> },
    { key: 'unset', label: intl.formatMessage(sm.unset), children: <UnsetModels key={pricingVersion} saved={saved} /> },
  ];
  return (
    <Tabs
      activeKey={sub}
      items={items}
      onChange={(k) => setParams({ tab: 'operation', sub: k })}
      data-testid="operation-subtabs"
    />
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
  const tab: TabKey = pick(TAB_KEYS, params.get('tab'), 'operation');
  const items = [
    { key: 'operation', label: intl.formatMessage(m.operation), children: <OperationTab saved={saved} /> },
    {
      key: 'rateLimit',
      label: intl.formatMessage(m.rateLimit),
      children: <PanelGrid panels={RATE_LIMIT_PANELS} saved={saved} />,
    },
    { key: 'model', label: intl.formatMessage(m.model), children: <PanelGrid panels={MODEL_PANELS} saved={saved} /> },
    { key: 'system', label: intl.formatMessage(m.system), children: <PanelGrid panels={SYSTEM_PANELS} saved={saved} /> },
    { key: 'other', label: intl.formatMessage(m.other), children: <PanelGrid panels={OTHER_PANELS} saved={saved} /> },
  ];
  return <Tabs activeKey={tab} items={items} onChange={(k) => setParams({ tab: k })} destroyOnHidden />;
}
