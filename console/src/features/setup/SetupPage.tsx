import { QuestionCircleOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Flex, Form, Input, Modal, Radio, Result, Spin, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { Navigate, useNavigate } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { isApiError } from '../../shared/apiError';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { validateSetup } from '../../shared/validation';
import { useGetSetupQuery, useSubmitSetupMutation } from './api';
import { setup as m } from './messages';

type Mode = 'external' | 'self' | 'demo';

interface Values {
  username?: string;
  password?: string;
  confirmPassword?: string;
  setupToken?: string;
  mode: Mode;
}

function ModesDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const intl = useIntl();
  return (
    <Modal open={open} onCancel={onClose} onOk={onClose} title={intl.formatMessage(m.mode)} footer={null}>
      {[m.modeHelpExternal, m.modeHelpSelf, m.modeHelpDemo].map((d) => (
        <Typography.Paragraph key={d.id}>{intl.formatMessage(d)}</Typography.Paragraph>
      ))}
    </Modal>
  );
}

export function SetupPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const { data, isLoading, isError } = useGetSetupQuery();
  const [submit, { isLoading: saving }] = useSubmitSetupMutation();
  const [help, setHelp] = useState(false);
  const user = useCurrentUser();

  if (isLoading) return <Spin fullscreen />;
  if (isError || !data) return <Result status="error" title={intl.formatMessage(m.loadFailed)} />;
  // Once set up (also right after submitting), the next step is signing in.
  if (data.status) return <Navigate to={user ? '/' : '/login'} replace />;
  const rootExists = data.root_init;

  const onFinish = async (v: Values) => {
    if (reportProblem(intl, validateSetup({ rootExists, ...v }))) return;
    // Failures are shown here (the endpoint is quiet in the store): the server's message or a fallback.
    const ok = await submit({
      username: v.username?.trim() ?? '',
      password: v.password ?? '',
      confirmPassword: v.confirmPassword ?? '',
      SelfUseModeEnabled: v.mode === 'self',
      DemoSiteEnabled: v.mode === 'demo',
      setup_token: v.setupToken?.trim() || undefined,
    })
      .unwrap()
      .then(
        () => true,
        (e: unknown) => {
          toast.error((isApiError(e) && e.status === 'BUSINESS' && e.message) || intl.formatMessage(m.submitFailed));
          return false;
        },
      );
    if (ok) {
      toast.success(intl.formatMessage(m.success));
      navigate('/login', { replace: true });
    }
  };

  return (
    <Flex justify="center" style={{ padding: '24px 8px' }}>
      <Card title={intl.formatMessage(m.title)} style={{ width: '100%', maxWidth: 560 }}>
        <Typography.Paragraph type="secondary">{intl.formatMessage(m.intro)}</Typography.Paragraph>
        {data.database_type === 'sqlite' && (
          <Alert
            type="warning"
            showIcon
            title={intl.formatMessage(m.sqliteWarning)}
            style={{ marginBottom: 16 }}
            data-testid="sqlite-warning"
          />
        )}
        <Form<Values> layout="vertical" initialValues={{ mode: 'external' }} onFinish={onFinish} requiredMark={false}>
          {rootExists ? (
            <Alert type="info" title={intl.formatMessage(m.rootExists)} style={{ marginBottom: 16 }} />
          ) : (
            <>
              <Form.Item label={intl.formatMessage(m.username)} name="username">
                <Input data-testid="setup-username" />
              </Form.Item>
              <Form.Item label={intl.formatMessage(m.password)} name="password">
                <Input.Password data-testid="setup-password" />
              </Form.Item>
              <Form.Item label={intl.formatMessage(m.confirmPassword)} name="confirmPassword">
                <Input.Password data-testid="setup-confirm" />
              </Form.Item>
            </>
          )}
          <Form.Item
            label={
              <span>
                {intl.formatMessage(m.mode)}{' '}
                <Button type="link" size="small" icon={<QuestionCircleOutlined />} onClick={() => setHelp(true)}>
                  {intl.formatMessage(m.modeHelp)}
                </Button>
              </span>
            }
            name="mode"
          >
            <Radio.Group
              options={[
                { value: 'external', label: intl.formatMessage(m.modeExternal) },
                { value: 'self', label: intl.formatMessage(m.modeSelf) },
                { value: 'demo', label: intl.formatMessage(m.modeDemo) },
              ]}
            />
          </Form.Item>
          <Form.Item label={intl.formatMessage(m.token)} name="setupToken" extra={intl.formatMessage(m.tokenHint)}>
            <Input autoComplete="off" />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={saving} data-testid="setup-submit">
            {intl.formatMessage(m.submit)}
          </Button>
        </Form>
        <ModesDialog open={help} onClose={() => setHelp(false)} />
      </Card>
    </Flex>
  );
}
