import { describe, expect, it } from 'vitest';
import { parseDomains } from './EmailWhitelist';
import { FIELD_LABELS, keySlug } from './fieldLabels';
import { MODEL_PANELS, RATE_LIMIT_PANELS } from './model/panels';
import { OPERATION_PANELS, OTHER_PANELS, SYSTEM_PANELS } from './panels';
import { RATIO_JSON_PANEL } from './ratio/jsonPanel';

describe('settings fields', () => {
  it('slugs option keys into message-id-safe names', () => {
    expect(keySlug('oidc.well_known')).toBe('oidcWellKnown');
    expect(keySlug('general_setting.docs_link')).toBe('generalSettingDocsLink');
    expect(keySlug('SMTPServer')).toBe('smtpServer');
    expect(keySlug('GitHubClientId')).toBe('gitHubClientId');
  });
  it('gives every option key a distinct label id', () => {
    const slugs = Object.keys(FIELD_LABELS).map(keySlug);
    expect(new Set(slugs).size).toBe(slugs.length);
  });
  it('edits each option key in one panel only', () => {
    const all = [...SYSTEM_PANELS, ...OPERATION_PANELS, ...OTHER_PANELS, ...RATE_LIMIT_PANELS, ...MODEL_PANELS, RATIO_JSON_PANEL];
    const keys = all.flatMap((p) => p.fields.map((f) => f.key));
    expect(new Set(keys).size).toBe(keys.length);
  });
  it('reads the whitelist comma list', () => {
    expect(parseDomains(' gmail.com, ,qq.com,')).toEqual(['gmail.com', 'qq.com']);
    expect(parseDomains('')).toEqual([]);
  });
});
