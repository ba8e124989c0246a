/** Headless Chromium (Debian's package) through playwright-core, for the console's browser tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.resolve(__dirname, '..', '..', '.local', 'e2e-screenshots');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  /** A new tab: its own sessionStorage, so its own sign-in. */
  page(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`Chromium is missing at ${CHROMIUM}: apt-get install -y chromium (.ci/run does it)`);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-e2e-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    page: async (viewport) => {
      const page = await context.newPage();
      if (viewport) await page.setViewportSize(viewport);
      return page;
    },
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/** Runs axe-core in the page (through the driver, which the page's CSP does not govern); serious and critical violations. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const source = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<unknown> } }).axe;
    // Fluent UI's focus manager (Tabster) places focusable aria-hidden sentinels that hand focus on at once; axe
    // cannot know that, so they are left out.
    return (await axe.run({ exclude: [['[data-tabster-dummy]']] }, { resultTypes: ['violations'] })) as {
      violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }> }>;
    };
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}) at ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
}
