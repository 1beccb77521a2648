/** Channel API types of this feature, taken from the generated OpenAPI schema. */
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** A channel as administrators see it (never its key; `key_count` says how many it holds). */
export type Channel = Schemas['ChannelView'];
/** A channel body for create and update; absent fields stay as they are on updates. */
export type ChannelInput = Schemas['ChannelInput'];
export type CreateChannelRequest = Schemas['CreateChannelRequest'];
/** What test-all and update-all-balances report. */
export type CheckSummary = Schemas['CheckSummary'];
/** The result of testing one channel. */
export type TestResult = Schemas['TestResult'];
export type TagEdit = Schemas['TagEdit'];
export type FetchModelsRequest = Schemas['FetchModelsRequest'];
export type ModelItem = Schemas['ModelItem'];
/** The keys of a multi-key channel with their statuses (`POST /api/channel/multi_key/manage`). */
export type KeysView = Schemas['KeysView'];
/** One key of a multi-key channel, shown as a preview only. */
export type KeyView = Schemas['KeyView'];
