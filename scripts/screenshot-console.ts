// npm run screenshots:console — regenerates docs/screenshots/console.png (light) and console-dark.png: a real server
// on a free port with a fixed clock and seed, a few runs played through the control plane, the console opened in
// Debian's Chromium (src/shared/testing/browser.ts) on one run's page.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAdminClient } from '../src/emulator/admin/client.js';
import { startServer } from '../src/emulator/serve/node.js';
import { launchBrowser } from '../src/shared/testing/browser.js';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));

const server = await startServer({ port: 0, time: 1789169800, frozen: true, seed: 'screenshot' });
const browser = await launchBrowser();
try {
  const admin = createAdminClient(fetch, server.url);
  const submit = async (input: string): Promise<string> => {
    const answer = await fetch(`${server.url}/v1/runs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ input }) });
    return ((await answer.json()) as { run_id: string }).run_id;
  };
  const done = await submit('Summarise the release notes');
  await admin.event(done, { event: 'tool.started', tool: 'web_search', preview: 'release notes v2026.8' });
  await admin.complete(done, { output: 'Three fixes and one new tool.', usage: { input_tokens: 812, output_tokens: 164 } });
  const failed = await submit('Deploy to staging');
  await admin.fail(failed, { error: 'provider timed out' });
  const waiting = await submit('Clean the build folder');
  await admin.event(waiting, { event: 'tool.started', tool: 'terminal', preview: 'rm -rf build/' });
  await admin.approvalRequest(waiting, { preset: 'shell', command: 'rm -rf build/', description: 'recursive delete' });
  await submit('Write the changelog');
  await admin.addFault({ preset: 'hermes_throttled' });

  mkdirSync(OUT, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: scheme, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${server.url}/__admin/ui/#/default/runs/${waiting}`);
    await page.locator('#approvals .approval').waitFor();
    await page.locator('#status-object', { hasText: 'waiting_for_approval' }).waitFor();
    const file = `${OUT}console${scheme === 'dark' ? '-dark' : ''}.png`;
    await page.screenshot({ path: file });
    console.log(`wrote ${file}`);
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
