/** The model ratio settings sub-tab as panel data: the pricing JSON options (spec 2 §2.1, §5.1). */
import { json, type PanelDef } from '../panels';
import { ratioJson as m } from './messages';

export const RATIO_JSON_PANEL: PanelDef = {
  id: 'ratios',
  title: m.title,
  fields: [
    json('ModelPrice', { hint: m.modelPriceHint }),
    json('ModelRatio', { hint: m.modelRatioHint }),
    json('CacheRatio', { hint: m.cacheRatioHint }),
    json('CreateCacheRatio', { hint: m.createCacheRatioHint }),
    json('CompletionRatio', { hint: m.completionRatioHint }),
    json('GroupRatio', { hint: m.groupRatioHint }),
    json('GroupGroupRatio', { hint: m.groupGroupRatioHint, example: JSON.stringify({ vip: { default: 0.9 } }) }),
    json('UserUsableGroups', { hint: m.userUsableGroupsHint }),
  ],
  extra: 'resetModelRatios',
};
