/**
 * Headless Chromium for the console's browser tests and screenshots: Debian's `chromium` package
 * (`apt-get install chromium`, which .ci/run installs), driven by playwright-core; Playwright's
 * own browser download is not reachable from the machines this project runs on.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where the browser is: CHROMIUM_PATH, else Debian's. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) {
    throw new Error(
      `no Chromium at ${executablePath}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath, headless: true });
}
