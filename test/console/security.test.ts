/**
 * The console's security middleware on a bare hono app (the browser test runs it in the console
 * itself): Host, the secret of the printed URL and its cookie, the CSRF token and origin, headers.
 */
import { createServer } from 'node:http';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  CSRF_FIELD,
  cookieName,
  csrfCheck,
  hostCheck,
  newKeys,
  noStore,
  ownLoopbackAddress,
  SECRET_PARAM,
  sameSecret,
  secretGate,
  securityHeaders,
} from '../../console/security';
import { listenOnLoopback } from '../../console/server';

const PORT = 4321;
const HOST = `127.18.5.201:${PORT}`;
const ORIGIN = `http://${HOST}`;
const keys = newKeys();
const cookie = `${cookieName(PORT)}=${keys.secret}`;

function app(): Hono {
  const app = new Hono();
  app.use(securityHeaders, noStore, hostCheck(HOST), secretGate(keys, PORT), ...csrfCheck(keys));
  app.get('/page', (c) => c.text('the page'));
  app.post('/act', (c) => c.text('acted'));
  return app;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  app().request(`${ORIGIN}/act`, {
    method: 'POST',
    headers: {
      host: HOST,
      cookie,
      origin: ORIGIN,
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    body: form(fields),
  });

describe('the secret of the printed URL', () => {
  it('given no secret and no cookie, then refused', async () => {
    const response = await app().request(`${ORIGIN}/page`, { headers: { host: HOST } });

    expect(response.status).toBe(403);
    expect(await response.text()).toMatch(/^refused: open the console through the URL `pq console` printed/);
  });

  it('given a wrong secret, or a wrong cookie, then refused', async () => {
    expect(
      (await app().request(`${ORIGIN}/page?${SECRET_PARAM}=guess`, { headers: { host: HOST } })).status,
    ).toBe(403);
    expect(
      (
        await app().request(`${ORIGIN}/page`, {
          headers: { host: HOST, cookie: `${cookieName(PORT)}=guess` },
        })
      ).status,
    ).toBe(403);
  });

  it('given the secret, then an HttpOnly SameSite=Strict cookie and a redirect to the URL without it', async () => {
    // Act
    const response = await app().request(`${ORIGIN}/page?view=hex&${SECRET_PARAM}=${keys.secret}`, {
      headers: { host: HOST },
    });

    // Assess
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/page?view=hex');
    expect(response.headers.get('set-cookie')).toBe(`${cookie}; Path=/; HttpOnly; SameSite=Strict`);
  });

  it('given the cookie, then the page, with headers that keep it unframed, script-free and uncached', async () => {
    const response = await app().request(`${ORIGIN}/page`, { headers: { host: HOST, cookie } });

    expect(response.status).toBe(200);
    expect(await response.text()).toBe('the page');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; script-src 'none'",
    );
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('given another Host (a DNS-rebinding page), then refused even with the cookie', async () => {
    const response = await app().request('http://attacker.example:4321/page', {
      headers: { host: 'attacker.example:4321', cookie },
    });

    expect(response.status).toBe(403);
    expect(await response.text()).toBe('refused: not addressed to this console\n');
  });

  it.each([['127.0.0.1'], ['localhost']])(
    'given %s instead of its own address, then refused: a cookie there would reach every local port',
    async (name) => {
      const response = await app().request(`http://${name}:${PORT}/page?${SECRET_PARAM}=${keys.secret}`, {
        headers: { host: `${name}:${PORT}` },
      });

      expect(response.status).toBe(403);
      expect(response.headers.get('set-cookie')).toBeNull();
    },
  );
});

describe('a loopback address of its own (issue 22, defect 4)', () => {
  it('given many starts, then each draws a 127.a.b.c that is never 127.0.0.x', () => {
    const drawn = Array.from({ length: 200 }, ownLoopbackAddress);

    for (const address of drawn) expect(address).toMatch(/^127\.([1-9]\d*)\.([1-9]\d*)\.([1-9]\d*)$/);
    expect(drawn.every((address) => address.split('.').every((octet) => Number(octet) <= 254))).toBe(true);
    expect(new Set(drawn).size).toBeGreaterThan(190);
  });

  it('given a start, then the server listens on its own address; given a system without it, then on 127.0.0.1', async () => {
    // Prepare: 192.0.2.1 (TEST-NET-1) is on no interface here, as 127.0.0.2 is on none of macOS's.
    const [first, second] = [createServer(), createServer()];
    const servers = [first, second];

    try {
      // Act
      const own = await listenOnLoopback(first, 0);
      const shared = await listenOnLoopback(second, 0, '192.0.2.1');

      // Assess
      expect(own.address).toMatch(/^127\./);
      expect(own.address).not.toBe('127.0.0.1');
      expect(shared.address).toBe('127.0.0.1');
    } finally {
      for (const server of servers) server.close();
    }
  });
});

describe('state changes (CSRF)', () => {
  it('given the cookie, the origin and the form token, then the action runs', async () => {
    const response = await post({ [CSRF_FIELD]: keys.csrf });

    expect(response.status).toBe(200);
    expect(await response.text()).toBe('acted');
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { [CSRF_FIELD]: 'guess' }],
    ['the secret instead of the token', { [CSRF_FIELD]: keys.secret }],
  ])('given %s, then refused', async (_name, fields) => {
    const response = await post(fields);

    expect(response.status).toBe(403);
    expect(await response.text()).toMatch(/CSRF token/);
  });

  it('given the token from another origin, then refused', async () => {
    const response = await post({ [CSRF_FIELD]: keys.csrf }, { origin: 'http://attacker.example' });

    expect(response.status).toBe(403);
  });
});

describe('sameSecret', () => {
  it('given anything but the same string, then false', () => {
    expect(sameSecret(keys.secret, keys.secret)).toBe(true);
    expect(sameSecret(`${keys.secret}x`, keys.secret)).toBe(false);
    expect(sameSecret(undefined, keys.secret)).toBe(false);
    expect(sameSecret(['x'], keys.secret)).toBe(false);
  });
});
