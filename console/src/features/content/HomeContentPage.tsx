/**
 * / (public; issue 16): the operator's `HomePageContent` option, as markdown/HTML (sanitized) or,
 * when it is an address, the page in a sandboxed frame; the operator's notice stays above it.
 * Without content (or when it cannot be read) the built-in landing page.
 */
import { Flex, Spin } from 'antd';
import { HomeNotice, HomePage } from '../layout/HomePage';
import { useGetHomePageContentQuery } from './api';
import { ContentView } from './ContentView';
import { contentKind } from './rules';

export function HomeContentPage() {
  const { data, isLoading } = useGetHomePageContentQuery();
  if (isLoading) return <Spin style={{ display: 'block', margin: '64px auto' }} />;
  const content = contentKind(data);
  if (content.kind === 'empty') return <HomePage />;
  return (
    <Flex vertical gap={16} data-testid="home-content">
      <HomeNotice />
      <ContentView content={content} testId="home" />
    </Flex>
  );
}
