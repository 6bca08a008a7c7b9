/**
 * What the console's browser test needs around the browser: `pq console` in a process of its own,
 * plain HTTP requests, the text a page shows, keyboard focus, labels, table rows, polling.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

const ROOT = join(__dirname, '..', '..');

/** The browser's globals as the evaluated functions use them (the project compiles without the DOM lib). */
interface BrowserElement {
  readonly tagName: string;
  readonly id: string;
  readonly textContent: string | null;
  readonly outerHTML: string;
  readonly labels?: { readonly length: number } | null;
  getAttribute(name: string): string | null;
}
declare const document: {
  readonly activeElement: BrowserElement | null;
  querySelectorAll(selector: string): Iterable<BrowserElement>;
};

/** `pq console` as an operator runs it, in its own process: resolves with the URL it prints. */
export async function startConsoleProcess(
  target: readonly string[],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bin', 'pq.ts'), 'console', '--port', '0', ...target],
    { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Never left running: nobody else knows it was started.
      child.kill('SIGINT');
      reject(new Error(`pq console printed no URL in 60 s:\n${output}`));
    }, 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /open (http:\/\/\S+)/.exec(output)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`pq console exited (${code}):\n${output}`));
    });
  });
  return { child, url };
}

/** Ctrl-C, by the process's id; resolves once it exited (undefined: it had exited already). */
export async function interrupt(
  child: ChildProcess,
): Promise<{ code: number | null; signal: string | null } | undefined> {
  if (child.exitCode !== null || child.signalCode !== null) return undefined;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  child.kill('SIGINT');
  return exited;
}

/** A plain HTTP request to the console, with whatever headers a test needs (Host too). */
export function raw(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const call = request(
      { hostname, port, path, method: options.method ?? 'GET', headers: options.headers ?? {} },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    call.on('error', reject);
    call.end(options.body);
  });
}

/** The text as the browser renders it (laid out, hidden parts left out): what an operator reads. */
export function rendered(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator, not a DOM node
  return locator.innerText();
}

/** The focused element as `TAG:id` for inputs, `TAG:text` for the rest. */
export async function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (!element) return '';
    const name = ['INPUT', 'SELECT', 'TEXTAREA'].includes(element.tagName)
      ? element.id
      : (element.textContent ?? '').trim();
    return `${element.tagName}:${name}`;
  });
}

/** Presses Tab until `target` (as `focused` names it) has the focus. */
export async function tabTo(page: Page, target: string, limit = 80): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)) === target) return;
  }
  throw new Error(`${target} is not reachable with Tab`);
}

/** Every visible form control and button has an accessible name (a label, or its own text). */
export async function expectLabelledControls(page: Page): Promise<void> {
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a')]
      .filter((element) => {
        const labelled = (element.labels?.length ?? 0) > 0 || element.getAttribute('aria-label');
        return !labelled && (element.textContent ?? '').trim() === '';
      })
      .map((element) => element.outerHTML),
  );
  expect(unlabelled).toStrictEqual([]);
}

/** A table's rows, header included, each cell's text with its whitespace collapsed. */
export async function rowsOf(table: ReturnType<Page['getByRole']>): Promise<string[][]> {
  return table
    .locator('tr')
    .evaluateAll((rows) =>
      rows.map((row) =>
        [...row.querySelectorAll('th, td')].map((cell) =>
          (cell.textContent ?? '').replace(/\s+/g, ' ').trim(),
        ),
      ),
    );
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Polls `read` every 250 ms until it returns a value; fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  read: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** What another local server did with one visit of the operator's browser. */
export interface Visit {
  /** The Cookie header the browser sent it. */
  readonly cookie: string | undefined;
  /** Its POST of a freeze to the console, with that cookie and the CSRF token it could read. */
  readonly acted: number;
}

/**
 * Another server on 127.0.0.1, as any local tool or dev server is, that turns every visit into an
 * attack on the console at `consoleOrigin`: with whatever cookie the browser sent, it reads a
 * form's CSRF token and posts a freeze, Origin and Host forged as only a server can.
 */
export async function startOtherLocalServer(
  consoleOrigin: string,
): Promise<{ port: number; visits: Visit[]; stop(): Promise<void> }> {
  const visits: Visit[] = [];
  const server = createServer((incoming, response) => {
    // One attack per page visit, not one more per favicon the browser asks for.
    if (incoming.url !== '/') {
      response.writeHead(404).end();
      return;
    }
    const { cookie } = incoming.headers;
    const headers: Record<string, string> = cookie ? { cookie } : {};
    raw(consoleOrigin, '/act/freeze', { headers })
      .then((form) =>
        raw(consoleOrigin, '/act/freeze', {
          method: 'POST',
          headers: { ...headers, origin: consoleOrigin, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            csrf: /name="csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '',
            reason: 'another local server',
          }).toString(),
        }),
      )
      .then(
        ({ status }) => {
          visits.push({ cookie, acted: status });
          response.end(`${status}\n`);
        },
        (error: Error) => {
          response.statusCode = 500;
          response.end(error.message);
        },
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    visits,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
