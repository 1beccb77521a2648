import { Button, Flex, Input, Space, Tag } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { reportProblem } from '../../shared/problem';
import { validateWhitelistDomain } from '../../shared/validation';
import { settings as m } from './messages';

/** Splits the stored comma list into domains. */
export function parseDomains(value: string): string[] {
  return value
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);
}

/** The EmailDomainWhitelist comma list as tags with an add box. */
export function EmailWhitelist({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const intl = useIntl();
  const [draft, setDraft] = useState('');
  const domains = parseDomains(value);
  const add = () => {
    if (reportProblem(intl, validateWhitelistDomain(draft, domains))) return;
    onChange([...domains, draft.trim()].join(','));
    setDraft('');
  };
  return (
    <Flex vertical gap={8}>
      <Flex wrap gap={4}>
        {domains.map((d) => (
          <Tag key={d} closable onClose={() => onChange(domains.filter((x) => x !== d).join(','))}>
            {d}
          </Tag>
        ))}
      </Flex>
      <Space.Compact style={{ maxWidth: 360 }}>
        <Input
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onPressEnter={add}
          placeholder={intl.formatMessage(m.whitelistPlaceholder)}
        />
        <Button onClick={add}>{intl.formatMessage(m.whitelistAdd)}</Button>
      </Space.Compact>
    </Flex>
  );
}
