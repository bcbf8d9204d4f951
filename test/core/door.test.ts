import { describe, expect, it } from 'vitest';
import { checkDoor } from '../../lib/server/door';

const T = 'secret-token';
const P = 4321;
const req = (method: string, url: string, headers: Record<string, string>) => ({ method, url, headers });

describe('the door', () => {
  it('refuses a request without the token with 401', () => {
    const v = checkDoor(req('GET', '/api/sessions', { host: `127.0.0.1:${P}` }), T, P);
    expect(v).toMatchObject({ kind: 'refuse', status: 401 });
  });
  it('refuses a wrong token', () => {
    expect(checkDoor(req('GET', '/?token=nope', { host: `localhost:${P}` }), T, P)).toMatchObject({ status: 401 });
    expect(checkDoor(req('GET', '/', { host: `localhost:${P}`, cookie: 'clamp_token=nope' }), T, P)).toMatchObject({ status: 401 });
  });
  it('exchanges ?token= for an HttpOnly SameSite=Strict cookie and drops it from the URL', () => {
    const v = checkDoor(req('GET', `/s/1?token=${T}&x=1`, { host: `localhost:${P}` }), T, P);
    expect(v).toEqual({ kind: 'set-cookie', location: '/s/1?x=1', cookie: `clamp_token=${T}; HttpOnly; SameSite=Strict; Path=/` });
  });
  it('lets the cookie and a bearer header through', () => {
    expect(checkDoor(req('GET', '/', { host: `[::1]:${P}`, cookie: `a=b; clamp_token=${T}` }), T, P)).toEqual({ kind: 'pass' });
    expect(checkDoor(req('GET', '/', { host: `127.0.0.1:${P}`, authorization: `Bearer ${T}` }), T, P)).toEqual({ kind: 'pass' });
  });
  it('refuses a foreign Host with 403 even with the token (DNS rebinding)', () => {
    expect(checkDoor(req('GET', '/', { host: `evil.example:${P}`, cookie: `clamp_token=${T}` }), T, P)).toMatchObject({ status: 403 });
    expect(checkDoor(req('GET', '/', { host: `127.0.0.1:${P + 1}`, cookie: `clamp_token=${T}` }), T, P)).toMatchObject({ status: 403 });
  });
  it('refuses a state-changing request with a missing, null or foreign Origin', () => {
    const h = { host: `127.0.0.1:${P}`, cookie: `clamp_token=${T}` };
    expect(checkDoor(req('POST', '/api/chat', h), T, P)).toMatchObject({ status: 403 });
    expect(checkDoor(req('POST', '/api/chat', { ...h, origin: 'null' }), T, P)).toMatchObject({ status: 403 });
    expect(checkDoor(req('POST', '/api/chat', { ...h, origin: 'http://evil.example' }), T, P)).toMatchObject({ status: 403 });
    expect(checkDoor(req('DELETE', '/api/x', { ...h, origin: `https://127.0.0.1:${P}` }), T, P)).toMatchObject({ status: 403 });
    expect(checkDoor(req('POST', '/api/chat', { ...h, origin: `http://127.0.0.1:${P}` }), T, P)).toEqual({ kind: 'pass' });
  });
});
