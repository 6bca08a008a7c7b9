/**
 * What keeps the console to the operator who started it. It listens on loopback only, but any
 * local process and any web page the operator's browser opens can reach that port, so:
 * - a random secret per start, carried by the URL `pq console` prints (as Jupyter does), is
 *   exchanged on first visit for an HttpOnly, SameSite=Strict cookie; every other request
 *   without it is refused, and the URL is cleaned so the secret stays out of history;
 * - the console listens on a loopback address of its own (ownLoopbackAddress), so that cookie
 *   reaches no other local server: browsers send a host's cookies to every port of it;
 * - the Host header must name this console (a DNS-rebinding page would send its own name);
 * - a state-changing request needs the per-start CSRF token of the console's own forms and must
 *   come from the console's own origin (hono's csrf middleware checks Origin / Sec-Fetch-Site);
 * - the pages run no script at all (CSP `script-src 'none'`), load nothing from elsewhere, cannot
 *   be framed, send no Referer, and are never cached.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { secureHeaders } from 'hono/secure-headers';

/** The per-start secrets: the one in the printed URL, and the one in every form. */
export interface ConsoleKeys {
  readonly secret: string;
  readonly csrf: string;
}

/** The query parameter of the printed URL. */
export const SECRET_PARAM = 'token';
/** The hidden field of every form that changes something. */
export const CSRF_FIELD = 'csrf';

export function newKeys(): ConsoleKeys {
  return { secret: randomBytes(32).toString('base64url'), csrf: randomBytes(32).toString('base64url') };
}

/** Comparing secrets in constant time: a timing difference must not spell the secret out. */
export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A loopback address for this start alone. Browsers keep cookies by host, not by port, so a cookie
 * set for 127.0.0.1 is sent to every server on 127.0.0.1 the browser visits, which could read a
 * form's CSRF token with it and act as the operator. Linux routes all of 127.0.0.0/8 to loopback:
 * a random 127.a.b.c (never 127.0.0.x) is a host no other local server is visited by, and a page
 * elsewhere that guessed it still gets no SameSite=Strict cookie sent along.
 */
export function ownLoopbackAddress(): string {
  const [a, b, c] = [...randomBytes(3)].map((byte) => 1 + (byte % 254));
  return `127.${a}.${b}.${c}`;
}

/** Where a system answers no other loopback address (macOS): the console's cookie is then shared. */
export const SHARED_LOOPBACK = '127.0.0.1';

/** One cookie per console: two consoles on other ports of one host share the browser's cookie jar. */
export function cookieName(port: number): string {
  return `pq_console_${port}`;
}

export const securityHeaders: MiddlewareHandler = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    scriptSrc: ["'none'"],
  },
  referrerPolicy: 'no-referrer',
});

export const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('Cache-Control', 'no-store');
};

/** Only requests addressed to this console by the host of its URL (`address:port`). */
export function hostCheck(host: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.header('host') !== host) return c.text('refused: not addressed to this console\n', 403);
    return next();
  };
}

/** The secret from the URL, once, then the cookie. */
export function secretGate(keys: ConsoleKeys, port: number): MiddlewareHandler {
  const name = cookieName(port);
  return async (c, next) => {
    const given = c.req.query(SECRET_PARAM);
    if (given !== undefined) {
      if (!sameSecret(given, keys.secret)) return refuseWithoutSecret(c);
      setCookie(c, name, keys.secret, { httpOnly: true, sameSite: 'Strict', path: '/' });
      const url = new URL(c.req.url);
      url.searchParams.delete(SECRET_PARAM);
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    if (!sameSecret(getCookie(c, name), keys.secret)) return refuseWithoutSecret(c);
    return next();
  };
}

function refuseWithoutSecret(c: Parameters<MiddlewareHandler>[0]) {
  return c.text(
    "refused: open the console through the URL `pq console` printed (it carries this start's secret)\n",
    403,
  );
}

/** State changes: from this console's origin, with the token its forms carry. */
export function csrfCheck(keys: ConsoleKeys): MiddlewareHandler[] {
  const tokenCheck: MiddlewareHandler = async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    if (!sameSecret(form[CSRF_FIELD], keys.csrf)) {
      return c.text('refused: this form is not from this console (missing or stale CSRF token)\n', 403);
    }
    return next();
  };
  return [csrf(), tokenCheck];
}
