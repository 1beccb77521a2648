import { Col, Row, Spin } from 'antd';
import { useCurrentUser } from '../../app/hooks';
import { useStatus } from '../status/useStatus';
import { AccountCard } from './AccountCard';
import { useGetSelfQuery } from './api';
import { BindingsCard } from './BindingsCard';
import { CheckInCard } from './CheckInCard';
import { InvitationCard } from './InvitationCard';
import { ModelsCard } from './ModelsCard';
import { NotificationCard, PriceSettingsCard } from './NotificationCard';
import { SecurityCard } from './SecurityCard';

export function PersonalPage() {
  const { data } = useGetSelfQuery(undefined, { refetchOnMountOrArgChange: true });
  const stored = useCurrentUser();
  const { status } = useStatus();
  const user = data ?? stored;
  if (!user) return <Spin />;
  const checkIn = Boolean(status.check_in_enabled ?? status.checkin_enabled);
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} lg={12}>
        <AccountCard user={user} />
      </Col>
      <Col xs={24} lg={12}>
        <ModelsCard />
      </Col>
      {checkIn && (
        <Col xs={24} lg={12}>
          <CheckInCard />
        </Col>
      )}
      <Col xs={24} lg={12}>
        <InvitationCard user={user} />
      </Col>
      <Col xs={24} lg={12}>
        <BindingsCard user={user} />
      </Col>
      <Col xs={24} lg={12}>
        <SecurityCard user={user} />
      </Col>
      <Col xs={24} lg={12}>
        <NotificationCard key={user.setting} user={user} />
      </Col>
      <Col xs={24} lg={12}>
        <PriceSettingsCard user={user} />
      </Col>
    </Row>
  );
}
