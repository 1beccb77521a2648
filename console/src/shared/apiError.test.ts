import { describe, expect, it } from 'vitest';
import { createIntl } from 'react-intl';
import { expiredLoginPath } from '../app/navigation';
import { errorText } from './apiError';

const intl = createIntl({ locale: 'en', messages: {} });

describe('error catalogue (spec 1 §8)', () => {
  it('maps statuses to the catalogue messages', () => {
    expect(errorText(intl, { status: 429, message: '' })).toBe('Too many requests, try again later');
    expect(errorText(intl, { status: 500, message: '' })).toBe('Internal server error, contact the administrator');
    expect(errorText(intl, { status: 405, message: '' })).toBe('This site is a demo only, no server side');
    expect(errorText(intl, { status: 418, message: 'teapot' })).toBe('Error: teapot');
    expect(errorText(intl, { status: 'BUSINESS', message: 'username taken' })).toBe('username taken');
  });
  it('sends a 401 to the login page with expired and returnTo', () => {
    expect(expiredLoginPath({ pathname: '/user', search: '?p=2' })).toBe('/login?expired=true&returnTo=%2Fuser%3Fp%3D2');
    expect(expiredLoginPath({ pathname: '/login', search: '' })).toBe('/login?expired=true');
  });
});
