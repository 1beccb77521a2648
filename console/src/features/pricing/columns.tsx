/** The pricing table's columns: availability, model (click copies), billing type, groups, ratios, price. */
import { CheckCircleFilled, CloseCircleFilled } from '@ant-design/icons';
import { Flex, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { ReactNode } from 'react';
import type { IntlShape } from 'react-intl';
import { groupRatioColor, type QuotaDisplay } from '../../shared/quota';
import { OTHER_VENDOR, QUOTA_TYPE } from './constants';
import { columns as m, endpointTypes, pricing as pm } from './messages';
import { endpointTypeOf, formatAmount, isAvailableIn, priceOf, vendorOf, type PriceView } from './rules';
import type { PricingModel } from './types';

export interface PricingColumnsInput {
  display: QuotaDisplay;
  /** The group whose prices are shown, and its ratio. */
  group: string;
  groupRatio: number;
  /** All group ratios, for the group tags. */
  ratios: Record<string, number>;
  /** Groups the viewer may switch to (group tags of other groups are plain). */
  selectable: ReadonlySet<string>;
  onCopy: (name: string) => void;
  onGroup: (group: string) => void;
  /** Phone width: availability, then the model with its billing type and price in one column. */
  compact?: boolean;
}

function priceLines(intl: IntlShape, p: PriceView, display: QuotaDisplay): string[] {
  const amount = (n: number) => {
    const text = formatAmount(n, display);
    return display.displayInCurrency ? text : intl.formatMessage(m.quotaAmount, { amount: text });
  };
  if (p.kind === 'perCall') return [intl.formatMessage(m.perCallPrice, { price: amount(p.perCall) })];
  return [
    intl.formatMessage(m.input, { price: amount(p.input) }),
    intl.formatMessage(m.output, { price: amount(p.output) }),
    ...(p.cachedInput === null ? [] : [intl.formatMessage(m.cachedInput, { price: amount(p.cachedInput) })]),
  ];
}

function billingTag(intl: IntlShape, row: PricingModel) {
  return row.quota_type === QUOTA_TYPE.perCall ? (
    <Tag color="purple">{intl.formatMessage(m.perCall)}</Tag>
  ) : (
    <Tag color="cyan">{intl.formatMessage(m.perToken)}</Tag>
  );
}

function priceCell(intl: IntlShape, row: PricingModel, c: PricingColumnsInput) {
  return (
    <Flex vertical data-testid="pricing-price">
      {priceLines(intl, priceOf(row, c.groupRatio, c.display), c.display).map((l) => (
        <Typography.Text key={l} style={c.compact ? undefined : { whiteSpace: 'nowrap' }}>
          {l}
        </Typography.Text>
      ))}
    </Flex>
  );
}

export function pricingColumns(intl: IntlShape, c: PricingColumnsInput): ColumnsType<PricingModel> {
  const all = columnsOf(intl, c);
  if (!c.compact) return all;
  const [available, model] = all;
  return [
    { ...available, width: 48, title: '' },
    {
      ...model,
      render: (value, row, index) => (
        <Flex vertical gap={6} align="flex-start">
          {model.render?.(value, row, index) as ReactNode}
          {billingTag(intl, row)}
          {priceCell(intl, row, c)}
        </Flex>
      ),
    },
  ];
}

function columnsOf(intl: IntlShape, c: PricingColumnsInput): ColumnsType<PricingModel> {
  return [
    {
      title: intl.formatMessage(m.available),
      key: 'available',
      width: 90,
      align: 'center',
      render: (_, row) =>
        isAvailableIn(row, c.group) ? (
          <Tooltip title={intl.formatMessage(m.availableYes, { group: c.group })}>
            <Typography.Text type="success" data-testid="pricing-available">
              <CheckCircleFilled />
            </Typography.Text>
          </Tooltip>
        ) : (
          <Tooltip title={intl.formatMessage(m.availableNo, { group: c.group })}>
            <Typography.Text type="danger" data-testid="pricing-unavailable">
              <CloseCircleFilled />
            </Typography.Text>
          </Tooltip>
        ),
    },
    {
      title: intl.formatMessage(m.model),
      key: 'model',
      render: (_, row) => {
        const vendor = vendorOf(row.model_name);
        return (
          <Flex vertical gap={4} align="flex-start">
            <Tooltip title={intl.formatMessage(m.copyModel)}>
              <Tag
                color="processing"
                style={{ cursor: 'pointer', marginInlineEnd: 0 }}
                onClick={() => c.onCopy(row.model_name)}
                data-testid="pricing-model-name"
              >
                {row.model_name}
              </Tag>
            </Tooltip>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {vendor === OTHER_VENDOR ? intl.formatMessage(pm.otherVendor) : vendor} ·{' '}
              {intl.formatMessage(endpointTypes[endpointTypeOf(row.model_name)])}
            </Typography.Text>
          </Flex>
        );
      },
    },
    {
      title: intl.formatMessage(m.billing),
      key: 'billing',
      width: 110,
      render: (_, row) => billingTag(intl, row),
    },
    {
      title: intl.formatMessage(m.groups),
      key: 'groups',
      render: (_, row) => (
        <Flex gap={4} wrap>
          {row.enable_groups.map((g) =>
            c.selectable.has(g) ? (
              <Tooltip key={g} title={intl.formatMessage(m.switchGroup)}>
                <Tag
                  color={g === c.group ? groupRatioColor(c.ratios[g] ?? 1) : undefined}
                  style={{ cursor: 'pointer', marginInlineEnd: 0 }}
                  onClick={() => c.onGroup(g)}
                  data-testid="pricing-group-tag"
                >
                  {g}
                </Tag>
              </Tooltip>
            ) : (
              <Tag key={g} style={{ marginInlineEnd: 0 }}>
                {g}
              </Tag>
            ),
          )}
        </Flex>
      ),
    },
    {
      title: intl.formatMessage(m.ratios),
      key: 'ratios',
      render: (_, row) => {
        const lines =
          row.quota_type === QUOTA_TYPE.perCall
            ? [
                intl.formatMessage(m.modelPrice, {
                  price: formatAmount(row.model_price, { ...c.display, displayInCurrency: true }),
                }),
              ]
            : [
                intl.formatMessage(m.modelRatio, { ratio: row.model_ratio }),
                intl.formatMessage(m.completionRatio, { ratio: row.completion_ratio }),
                ...(typeof row.cache_ratio === 'number' ? [intl.formatMessage(m.cacheRatio, { ratio: row.cache_ratio })] : []),
              ];
        return (
          <Flex vertical>
            {[...lines, intl.formatMessage(m.groupRatio, { ratio: c.groupRatio })].map((l) => (
              <Typography.Text key={l} type="secondary" style={{ whiteSpace: 'nowrap' }}>
                {l}
              </Typography.Text>
            ))}
          </Flex>
        );
      },
    },
    {
      title: intl.formatMessage(m.price),
      key: 'price',
      render: (_, row) => priceCell(intl, row, c),
    },
  ];
}
