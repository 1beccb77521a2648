import { Card, Flex } from 'antd';
import type { ReactNode } from 'react';

/** The centred card the sign-in pages share. */
export function AuthCard({ title, children }: { title: ReactNode; children: ReactNode }) {
  return (
    <Flex justify="center" style={{ padding: '32px 8px' }}>
      <Card title={title} style={{ width: '100%', maxWidth: 420 }}>
        {children}
      </Card>
    </Flex>
  );
}
