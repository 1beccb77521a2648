/** The pricing banner (spec 3 §2.5): the viewer's group and ratio (a warning when signed out) and the formula. */
import { Alert, Flex } from 'antd';
import { useIntl } from 'react-intl';
import type { QuotaDisplay } from '../../shared/quota';
import { pricing as m } from './messages';

export interface PricingBannerProps {
  signedIn: boolean;
  viewerGroup: string;
  viewerRatio: number;
  /** The group whose prices are shown (when it is not the viewer's own). */
  group: string;
  groupRatio: number;
  display: QuotaDisplay;
}

export function PricingBanner({ signedIn, viewerGroup, viewerRatio, group, groupRatio, display }: PricingBannerProps) {
  const intl = useIntl();
  const who = signedIn
    ? intl.formatMessage(m.signedIn, { group: viewerGroup, ratio: viewerRatio })
    : intl.formatMessage(m.signedOut, { ratio: viewerRatio });
  const viewing = group !== viewerGroup ? intl.formatMessage(m.viewing, { group, ratio: groupRatio }) : null;
  const formula = intl.formatMessage(display.displayInCurrency ? m.formulaCurrency : m.formulaQuota, {
    quotaPerUnit: display.quotaPerUnit,
  });
  return (
    <Flex vertical gap={8} style={{ marginBottom: 16 }}>
      <Alert
        type={signedIn ? 'info' : 'warning'}
        showIcon
        title={who}
        description={viewing}
        data-testid={signedIn ? 'pricing-banner' : 'pricing-signed-out'}
      />
      <Alert type="success" title={formula} data-testid="pricing-formula" />
    </Flex>
  );
}
