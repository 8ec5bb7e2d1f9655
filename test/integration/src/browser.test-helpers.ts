/**
 * A headless Debian chromium driven by playwright-core for the explorer's browser tests: no browser is
 * downloaded; `scripts/ensure-chromium.sh` installs the distribution's package when it is missing (fatal
 * under CI=true; elsewhere it warns and the tests skip). Each page records its console errors, uncaught
 * errors and failed requests, which the tests require to be none.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Where the screenshots of each page go: git-ignored, kept by CI as test artifacts. */
export const ARTIFACTS = join(ROOT, 'test', 'integration', '.artifacts', 'explorer');

/** The chromium binary, or undefined (with the script's warning printed) when it cannot be had outside CI. */
export function chromiumBinary(): string | undefined {
  const run = spawnSync('bash', [join(ROOT, 'scripts', 'ensure-chromium.sh')], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`scripts/ensure-chromium.sh failed: ${run.stderr.trim()}`);
  const path = run.stdout.trim().split('\n').at(-1);
  if (!path) {
    process.stderr.write(run.stderr);
    return undefined;
  }
  return path;
}

export async function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    // Chromium refuses its sandbox as root (CI and these machines run as root).
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

export interface WatchedPage {
  page: Page;
  /** Console errors, uncaught exceptions and failed requests seen since the page opened. */
  problems: string[];
}

export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`),
  );
  return { page, problems };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's violations on the page as it is now. Its source goes in through the DevTools protocol
 * (evaluate), which the page's Content-Security-Policy does not govern: no inline script is added.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axe.source);
  // A string, run in the page: this program has no DOM types.
  return page.evaluate<AxeViolation[]>(`axe.run(document).then((result) => result.violations.map((v) => ({
    id: v.id, impact: v.impact || null, help: v.help, nodes: v.nodes.map((node) => node.target.join(' ')),
  })))`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
