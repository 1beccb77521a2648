/** The route table (spec 3 §2.1) with each route's guard. */
import { lazy, type ReactNode } from 'react';
import type { RouteObject } from 'react-router';
import { Guard, type GuardLevel } from './Guard';
import { AppLayout } from '../features/layout/AppLayout';
import { NotFoundPage } from '../features/notFound/NotFoundPage';
import { SetupPage } from '../features/setup/SetupPage';
import { LoginPage } from '../features/auth/LoginPage';
import { RegisterPage } from '../features/auth/RegisterPage';
import { ResetRequestPage } from '../features/auth/ResetRequestPage';
import { ResetConfirmPage } from '../features/auth/ResetConfirmPage';
import { OAuthCallbackPage } from '../features/auth/OAuthCallbackPage';

// The signed-in screens load on first visit, in their own chunks.
const UsersPage = lazy(() => import('../features/users/UsersPage').then((m) => ({ default: m.UsersPage })));
const PersonalPage = lazy(() => import('../features/personal/PersonalPage').then((m) => ({ default: m.PersonalPage })));
const ChannelsPage = lazy(() => import('../features/channels/ChannelsPage').then((m) => ({ default: m.ChannelsPage })));
const TokensPage = lazy(() => import('../features/tokens/TokensPage').then((m) => ({ default: m.TokensPage })));
const RedemptionsPage = lazy(() =>
  import('../features/redemptions/RedemptionsPage').then((m) => ({ default: m.RedemptionsPage })),
);
const GatewaysPage = lazy(() => import('../features/gateways/GatewaysPage').then((m) => ({ default: m.GatewaysPage })));
const WalletPage = lazy(() => import('../features/wallet/WalletPage').then((m) => ({ default: m.WalletPage })));
const SettingsPage = lazy(() => import('../features/settings/SettingsPage').then((m) => ({ default: m.SettingsPage })));
const PricingPage = lazy(() => import('../features/pricing/PricingPage').then((m) => ({ default: m.PricingPage })));
const DashboardPage = lazy(() => import('../features/dashboard/DashboardPage').then((m) => ({ default: m.DashboardPage })));
const LogsPage = lazy(() => import('../features/logs/LogsPage').then((m) => ({ default: m.LogsPage })));
const ChatPage = lazy(() => import('../features/chat/ChatPage').then((m) => ({ default: m.ChatPage })));
const Chat2LinkPage = lazy(() => import('../features/chat/Chat2LinkPage').then((m) => ({ default: m.Chat2LinkPage })));
const AboutPage = lazy(() => import('../features/content/AboutPage').then((m) => ({ default: m.AboutPage })));
const HomeContentPage = lazy(() => import('../features/content/HomeContentPage').then((m) => ({ default: m.HomeContentPage })));
const PlaygroundPage = lazy(() => import('../features/playground/PlaygroundPage').then((m) => ({ default: m.PlaygroundPage })));
const DrawingLogPage = lazy(() => import('../features/jobs/DrawingLogPage').then((m) => ({ default: m.DrawingLogPage })));
const TaskLogPage = lazy(() => import('../features/jobs/TaskLogPage').then((m) => ({ default: m.TaskLogPage })));

export interface AppRoute {
  path: string;
  guard: GuardLevel;
  element: ReactNode;
}

export const ROUTES: AppRoute[] = [
  { path: '/', guard: 'public', element: <HomeContentPage /> },
  { path: '/setup', guard: 'public', element: <SetupPage /> },
  { path: '/login', guard: 'public', element: <LoginPage /> },
  { path: '/register', guard: 'public', element: <RegisterPage /> },
  { path: '/reset', guard: 'public', element: <ResetRequestPage /> },
  { path: '/user/reset', guard: 'public', element: <ResetConfirmPage /> },
  { path: '/oauth/:provider', guard: 'public', element: <OAuthCallbackPage /> },
  { path: '/user', guard: 'admin', element: <UsersPage /> },
  { path: '/user/edit', guard: 'admin', element: <UsersPage /> },
  { path: '/user/edit/:id', guard: 'admin', element: <UsersPage /> },
  { path: '/setting', guard: 'admin', element: <SettingsPage /> },
  { path: '/personal', guard: 'user', element: <PersonalPage /> },
  { path: '/channel', guard: 'admin', element: <ChannelsPage /> },
  { path: '/channel/add', guard: 'admin', element: <ChannelsPage /> },
  { path: '/channel/edit/:id', guard: 'admin', element: <ChannelsPage /> },
  { path: '/redemption', guard: 'admin', element: <RedemptionsPage /> },
  { path: '/gateway', guard: 'admin', element: <GatewaysPage /> },
  { path: '/token', guard: 'user', element: <TokensPage /> },
  { path: '/topup', guard: 'user', element: <WalletPage /> },
  { path: '/playground', guard: 'user', element: <PlaygroundPage /> },
  { path: '/log', guard: 'user', element: <LogsPage /> },
  { path: '/detail', guard: 'user', element: <DashboardPage /> },
  { path: '/midjourney', guard: 'user', element: <DrawingLogPage /> },
  { path: '/task', guard: 'user', element: <TaskLogPage /> },
  { path: '/chat2link', guard: 'user', element: <Chat2LinkPage /> },
  { path: '/pricing', guard: 'public', element: <PricingPage /> },
  { path: '/about', guard: 'public', element: <AboutPage /> },
  { path: '/chat/:id?', guard: 'public', element: <ChatPage /> },
  { path: '*', guard: 'public', element: <NotFoundPage /> },
];

export function routeObjects(): RouteObject[] {
  return [
    {
      element: <AppLayout />,
      children: ROUTES.map((r) => ({ path: r.path, element: <Guard level={r.guard}>{r.element}</Guard> })),
    },
  ];
}
