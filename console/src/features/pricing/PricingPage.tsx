/**
 * /pricing (public; spec 3 §2.5): the models served by enabled channels with their prices for the
 * viewer's group or a chosen one; fuzzy search, vendor and endpoint-type filters, copy of a name or
 * of the selected names. Prices follow the currency/quota display setting. Not paginated.
 */
import { CopyOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Flex, Input, Select, Table, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { useCurrentUser } from '../../app/hooks';
import { copyWithFallback } from '../../shared/clipboard';
import { toast } from '../../shared/feedback';
import { useIsMobile } from '../../shared/useIsMobile';
import { useQuotaDisplay } from '../status/useStatus';
import { useGetPricingQuery } from './api';
import { pricingColumns } from './columns';
import { DEFAULT_GROUP, OTHER_VENDOR, type EndpointType } from './constants';
import { endpointTypes, pricing as m } from './messages';
import { PricingBanner } from './PricingBanner';
import { copyText, endpointOptions, filterModels, groupRatioOf, selectableGroups, vendorOptions } from './rules';
import type { PricingData, PricingModel } from './types';

const EMPTY: PricingData = { models: [], groupRatio: {}, usableGroups: {} };

export function PricingPage() {
  const intl = useIntl();
  const user = useCurrentUser();
  const display = useQuotaDisplay();
  const mobile = useIsMobile();
  // A failed call is reported by the app's error toasts; the table then stays empty.
  const { data = EMPTY, isFetching } = useGetPricingQuery(user?.id ?? 0);
  const viewerGroup = user?.group || DEFAULT_GROUP;
  const [chosenGroup, setChosenGroup] = useState<string | undefined>();
  const [keyword, setKeyword] = useState('');
  const [vendor, setVendor] = useState<string | undefined>();
  const [endpoint, setEndpoint] = useState<EndpointType | undefined>();
  const [selected, setSelected] = useState<string[]>([]);

  const groups = useMemo(() => selectableGroups(data, viewerGroup), [data, viewerGroup]);
  const group = chosenGroup !== undefined && groups.includes(chosenGroup) ? chosenGroup : viewerGroup;
  const ratio = groupRatioOf(data.groupRatio, group);
  const shown = useMemo(() => filterModels(data.models, { keyword, vendor, endpoint }), [data.models, keyword, vendor, endpoint]);
  const vendors = useMemo(() => vendorOptions(data.models), [data.models]);
  const endpoints = useMemo(() => endpointOptions(data.models), [data.models]);

  const columns = useMemo(
    () =>
      pricingColumns(intl, {
        display,
        group,
        groupRatio: ratio,
        ratios: data.groupRatio,
        selectable: new Set(groups),
        onCopy: (name) => void copyWithFallback(intl, name),
        onGroup: setChosenGroup,
        compact: mobile,
      }),
    [intl, display, group, ratio, data.groupRatio, groups, mobile],
  );

  const copySelected = () => {
    if (selected.length === 0) {
      toast.error(intl.formatMessage(m.noneSelected));
      return;
    }
    void copyWithFallback(intl, copyText(selected));
  };

  return (
    <Card title={intl.formatMessage(m.title)} data-testid="pricing-page">
      <PricingBanner
        signedIn={Boolean(user)}
        viewerGroup={viewerGroup}
        viewerRatio={groupRatioOf(data.groupRatio, viewerGroup)}
        group={group}
        groupRatio={ratio}
        display={display}
      />
      <Flex gap={8} wrap align="center" style={{ marginBottom: 16 }}>
        <Input.Search
          allowClear
          style={{ width: 260, maxWidth: '100%' }}
          placeholder={intl.formatMessage(m.search)}
          value={keyword}
          onChange={(e) => setKeyword(e.target.value)}
          data-testid="pricing-search"
        />
        <Select
          style={{ width: 200, maxWidth: '100%' }}
          aria-label={intl.formatMessage(m.group)}
          value={group}
          onChange={setChosenGroup}
          options={groups.map((g) => ({
            value: g,
            label: intl.formatMessage(m.groupOption, { group: g, ratio: groupRatioOf(data.groupRatio, g) }),
          }))}
          data-testid="pricing-group"
        />
        <Select
          style={{ width: 170, maxWidth: '100%' }}
          allowClear
          placeholder={intl.formatMessage(m.allVendors)}
          value={vendor}
          onChange={(v: string | undefined) => setVendor(v)}
          options={vendors.map((v) => ({ value: v, label: v === OTHER_VENDOR ? intl.formatMessage(m.otherVendor) : v }))}
          data-testid="pricing-vendor"
        />
        <Select
          style={{ width: 190, maxWidth: '100%' }}
          allowClear
          placeholder={intl.formatMessage(m.allEndpoints)}
          value={endpoint}
          onChange={(v: EndpointType | undefined) => setEndpoint(v)}
          options={endpoints.map((t) => ({ value: t, label: intl.formatMessage(endpointTypes[t]) }))}
          data-testid="pricing-endpoint"
        />
        <Button icon={<CopyOutlined />} onClick={copySelected} data-testid="pricing-copy-selected">
          {intl.formatMessage(m.copySelected)}
        </Button>
        <Typography.Text type="secondary" style={{ marginInlineStart: 'auto' }} data-testid="pricing-count">
          {intl.formatMessage(m.count, { shown: shown.length, total: data.models.length })}
        </Typography.Text>
      </Flex>
      <Table<PricingModel>
        rowKey="model_name"
        size="middle"
        scroll={mobile ? undefined : { x: 960 }}
        loading={isFetching}
        columns={columns}
        dataSource={shown}
        pagination={false}
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) => setSelected(keys.map(String)),
          preserveSelectedRowKeys: true,
        }}
        locale={{
          emptyText: (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={intl.formatMessage(data.models.length === 0 ? m.emptyNone : m.emptyFiltered)}
            />
          ),
        }}
        data-testid="pricing-table"
      />
    </Card>
  );
}
