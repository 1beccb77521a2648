/** /topup: the user's wallet (spec 2 §2.7): balance, redeem a code, online top-up, top-up records. */
import { Flex, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { BalanceCard } from './BalanceCard';
import { wallet as m } from './messages';
import { OnlineTopUpCard } from './OnlineTopUpCard';
import { RedeemCard } from './RedeemCard';
import { TopUpRecords } from './TopUpRecords';

export function WalletPage() {
  const intl = useIntl();
  return (
    <Flex vertical gap={16}>
      <Typography.Title level={4} style={{ margin: 0 }}>
        {intl.formatMessage(m.title)}
      </Typography.Title>
      <BalanceCard />
      <RedeemCard />
      <OnlineTopUpCard />
      <TopUpRecords />
    </Flex>
  );
}
