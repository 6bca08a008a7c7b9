/**
 * The console's web server: a hono app behind the security middleware (security.ts), serving
 * server-rendered pages (pages/) and the actions (actions.ts), on loopback only. It is given a
 * deployment found exactly as every `pq` command finds it (cli/deployment.ts), and acts with the
 * operator's own AWS identity.
 */
import type { AddressInfo, Server } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { html } from 'hono/html';
import { HTTPException } from 'hono/http-exception';
import type { Deployment } from '../cli/deployment';
import { registerActions } from './actions';
import { backstopPage } from './pages/backstop';
import { CHART_SPANS, type ChartSpan, chartStart } from './pages/chart';
import { groupsPage } from './pages/groups';
import { page, type Section } from './pages/layout';
import { overviewPage } from './pages/overview';
import { recordPage } from './pages/record';
import { parseListQuery, recordsPage, toFilter } from './pages/records';
import { CONSOLE_CSS } from './pages/style';
import { listRecords, readBackstop, readBody, readGroups, readOverview, readRecord } from './reads';
import {
  type ConsoleKeys,
  csrfCheck,
  hostCheck,
  newKeys,
  noStore,
  ownLoopbackAddress,
  SECRET_PARAM,
  SHARED_LOOPBACK,
  secretGate,
  securityHeaders,
} from './security';

export interface ConsoleDeps {
  readonly deployment: Deployment;
  /** The clock; tests may fix it. */
  readonly now: () => Date;
  /** The wait of a paced group replay (`pq replay --rate`); tests move their clock instead. */
  readonly sleep: (ms: number) => Promise<void>;
}

/** Where a console listens: the host of its URL. */
export interface Listening {
  readonly address: string;
  readonly port: number;
}

/** The app for a console listening `at` an address and port, with this start's keys. */
export function consoleApp(deps: ConsoleDeps, keys: ConsoleKeys, at: Listening): Hono {
  const { deployment, now, sleep } = deps;
  const frame = (title: string, section?: Section) => ({
    title,
    functionName: deployment.functionName,
    ...(section ? { section } : {}),
  });
  const app = new Hono();
  app.use(securityHeaders, noStore, hostCheck(`${at.address}:${at.port}`), secretGate(keys, at.port));
  app.use(bodyLimit({ maxSize: 64 * 1024 }), ...csrfCheck(keys));

  // Browsers ask for it on their own; there is none.
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/assets/console.css', (c) =>
    c.body(CONSOLE_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }),
  );

  app.get('/', async (c) => {
    const requested = c.req.query('chart');
    const span: ChartSpan =
      requested !== undefined && requested in CHART_SPANS ? (requested as ChartSpan) : '24h';
    const at = now();
    const overview = await readOverview(deployment, chartStart(span, at), at);
    return c.html(page(frame('Overview', 'overview'), overviewPage(overview, span, at)));
  });

  app.get('/groups', async (c) =>
    c.html(page(frame('Failure groups', 'groups'), groupsPage(await readGroups(deployment), now()))),
  );

  app.get('/backstop', async (c) =>
    c.html(page(frame('Backstop', 'backstop'), backstopPage(await readBackstop(deployment), now()))),
  );

  app.get('/records', async (c) => {
    const query = parseListQuery(c.req.query());
    const records = await listRecords(deployment, toFilter(query, now()));
    return c.html(page(frame('Records', 'records'), recordsPage(records, query, now())));
  });

  app.get('/records/:id', async (c) => {
    const id = c.req.param('id');
    const detail = await readRecord(deployment, id);
    if (detail === undefined) return c.html(page(frame('No such record', 'records'), notFound(id)), 404);
    return c.html(page(frame(`Record ${id}`, 'records'), recordPage(detail, c.req.query('view'), now())));
  });

  app.get('/records/:id/body', async (c) => {
    const id = c.req.param('id');
    const body = await readBody(deployment, id);
    if (body === undefined) return c.text(`no body for record ${id}\n`, 404);
    // Bytes to save, never to render: the browser must not guess a type and run what it finds.
    return c.body(new Uint8Array(body), 200, {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${id.replace(/[^\w.-]/g, '_')}.body"`,
      'Content-Security-Policy': "sandbox; default-src 'none'",
    });
  });

  registerActions(app, { deployment, now, sleep, csrf: keys.csrf });

  app.notFound((c) => c.html(page(frame('Not found'), notFound(c.req.path)), 404));
  app.onError((error, c) => {
    // A refusal of the middleware (csrf: a form from another origin) keeps its own status.
    if (error instanceof HTTPException) return error.getResponse();
    // As the CLI prints a failure: adapter errors never carry a task token or a body.
    const message = `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
    return c.html(page(frame('Failed'), failed(message)), 500);
  });
  return app;
}

export interface RunningConsole {
  /** The URL to open: it carries this start's secret. */
  readonly url: string;
  readonly port: number;
  /** False where the system answers only 127.0.0.1: other local servers then receive the cookie. */
  readonly ownAddress: boolean;
  stop(): Promise<void>;
}

/** Listens on a loopback address of its own, at `port` (0: a free one). */
export async function startConsole(deps: ConsoleDeps & { readonly port: number }): Promise<RunningConsole> {
  const keys = newKeys();
  let app: Hono | undefined;
  // The app needs the address it listens on (Host check, cookie name): made once listening, and
  // no request can arrive before.
  const server = createAdaptorServer({
    fetch: (request, env) => (app ? app.fetch(request, env) : new Response('starting\n', { status: 503 })),
  });
  const at = await listenOnLoopback(server, deps.port);
  app = consoleApp(deps, keys, at);
  return {
    url: `http://${at.address}:${at.port}/?${SECRET_PARAM}=${keys.secret}`,
    port: at.port,
    ownAddress: at.address !== SHARED_LOOPBACK,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

/**
 * Listens on `address` (a loopback address of this start's own), or on 127.0.0.1 where the system
 * has no such address (EADDRNOTAVAIL: macOS answers only 127.0.0.1 unless configured).
 */
export async function listenOnLoopback(
  server: Server,
  port: number,
  address = ownLoopbackAddress(),
): Promise<Listening> {
  try {
    await listen(server, port, address);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL') throw error;
    await listen(server, port, SHARED_LOOPBACK);
  }
  return server.address() as AddressInfo;
}

function listen(server: Server, port: number, address: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function notFound(what: string) {
  return html`<p role="alert">Nothing here: <code>${what}</code>.</p><p><a href="/records">The records</a> · <a href="/">Overview</a></p>`;
}

function failed(message: string) {
  return html`<div class="outcome failed" role="alert"><p><strong>Failed:</strong> ${message}</p></div><p><a href="/">Overview</a></p>`;
}
