// The console end to end, in a real Chromium (src/shared/testing/browser.ts) against a real `hermetic serve` process
// with an admin key and an API key: the key form; a run submitted by a client appears without a reload, an approval
// request shows its choices and "once" answers it, "Complete" shows the status and the run.completed event; a fault preset refuses the next submit and its hit shows; the clock
// advances; the sections are reachable from the keyboard. Every test also holds that the page logged no error or
// warning, threw nothing, and asked nothing of another origin. Conditions are waited for, never slept on.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { spawnServe, type ServeProcess } from '../support/process.js';
import { closeSharedBrowser, sharedBrowser } from '../../src/shared/testing/browser.js';

const ADMIN_KEY = 'console-admin-key-0123456789';
const API_KEY = 'console-api-key-0123456789ab';
const T0 = 1789169800;
/** A deadline for a condition that never comes (a loaded machine is slow, not wrong). */
const DEADLINE_MS = 60_000;

let server: ServeProcess;

before(async () => {
  // --cors-origins: a browser's POST carries an Origin, which Hermes refuses unless listed (the approval choices are
  // POST /v1/runs/{run_id}/approval); the port is not known before the server starts, so any origin.
  server = await spawnServe(['--port', '0', '--quiet', '--time', String(T0), '--frozen', '--seed', 'console', '--admin-key', ADMIN_KEY, '--api-key', API_KEY, '--cors-origins', '*']);
});

after(async () => {
  server.child.kill('SIGTERM');
  await Promise.all([server.exited, closeSharedBrowser()]);
});

interface Session {
  page: Page;
  context: BrowserContext;
  /** Console messages of type error or warning, uncaught page errors, and requests to any other origin. */
  problems: string[];
  close(): Promise<void>;
}

/** A fresh browser context on the console at `hash`, watched for problems. */
async function openConsole(hash: string): Promise<Session> {
  const browser = await sharedBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(DEADLINE_MS);
  const origin = new URL(server.url).origin;
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (new URL(r.url()).origin !== origin) problems.push(`request to another origin: ${r.url()}`); });
  await page.goto(`${server.url}/__admin/ui/${hash}`);
  return { page, context, problems, close: () => context.close() };
}

/** The key form the console shows first on a server with an admin key. */
async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Admin key').fill(ADMIN_KEY);
  await page.getByLabel('Hermes API key (for a run\'s status object and events)').fill(API_KEY);
  await page.getByRole('button', { name: 'Save keys' }).click();
  await page.locator('#section-title').waitFor();
}

/** POST /v1/runs as a client under test does it, in `namespace`. */
async function submit(namespace: string, input: string): Promise<Response> {
  return fetch(`${server.url}/v1/runs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json', 'x-hermetic-namespace': namespace },
    body: JSON.stringify({ input }),
  });
}

test('a run a client submits appears without a reload; "Complete" shows the status and the run.completed event', async () => {
  const s = await openConsole('#/e2e-runs/runs');
  try {
    const { page } = s;
    await page.getByRole('heading', { name: 'Keys' }).waitFor();
    await signIn(page);
    await page.getByText('No runs yet').waitFor();
    const answer = await submit('e2e-runs', 'hello from a client');
    assert.equal(answer.status, 202);
    const { run_id: runId } = (await answer.json()) as { run_id: string };
    // The poll brings it in: no reload, no button.
    const row = page.locator('#runs-table tr', { hasText: runId });
    await row.locator('.badge', { hasText: 'running' }).waitFor();
    await row.getByRole('link').click();
    await page.waitForURL(`**/__admin/ui/#/e2e-runs/runs/${runId}`);
    await page.locator('#status-object', { hasText: '"status": "running"' }).waitFor();
    await page.getByRole('button', { name: 'Attach to the event stream' }).click();
    await page.getByRole('button', { name: 'Detach from the event stream' }).waitFor();
    // An approval request parks the run; its choices are buttons; "once" answers it through Hermes's own route.
    await page.getByRole('button', { name: 'Request approval' }).click();
    await row.locator('.badge', { hasText: 'waiting_for_approval' }).waitFor();
    // The run's badge and its pending approvals come from two polls: the choices are read once they are drawn.
    const choices = page.getByRole('group', { name: /^Choices for / });
    await choices.getByRole('button', { name: 'deny' }).waitFor();
    assert.deepEqual(await choices.getByRole('button').allInnerTexts(), ['once', 'session', 'always', 'deny']);
    await choices.getByRole('button', { name: 'once' }).click();
    await page.getByText('No approval pending.').waitFor();
    await page.locator('#events li strong', { hasText: 'approval.responded' }).waitFor();
    await row.locator('.badge', { hasText: 'running' }).waitFor();
    await page.getByLabel('Text', { exact: true }).fill('All done.');
    await page.getByRole('button', { name: 'Complete' }).click();
    await row.locator('.badge', { hasText: 'completed' }).waitFor();
    await page.locator('#run-info .badge', { hasText: 'completed' }).waitFor();
    await page.locator('#events li strong', { hasText: 'run.completed' }).waitFor();
    await page.locator('#events li', { hasText: '"output": "All done."' }).waitFor();
    await page.locator('#status-object', { hasText: '"status": "completed"' }).waitFor();
    await page.locator('#notice', { hasText: 'Complete: done.' }).waitFor();
    assert.deepEqual(s.problems, []);
  } finally {
    await s.close();
  }
});

test('a fault preset added in the console refuses the next submit, and its hit shows', async () => {
  const s = await openConsole('#/e2e-faults/faults');
  try {
    const { page } = s;
    await signIn(page);
    await page.getByText('No fault rules').waitFor();
    await page.getByLabel('Preset').selectOption('hermes_throttled');
    await page.getByRole('button', { name: 'Add preset' }).click();
    const rule = page.locator('#faults-table tr', { hasText: 'hermes_throttled' });
    await rule.waitFor();
    const refused = await submit('e2e-faults', 'refused please');
    assert.equal(refused.status, 429);
    await page.locator('#faults-fired', { hasText: '1' }).waitFor();
    // The preset is spent after one request: the next submit is admitted.
    assert.equal((await submit('e2e-faults', 'admitted now')).status, 202);
    await rule.getByRole('button', { name: /^Remove / }).click();
    await page.getByText('No fault rules').waitFor();
    // The journal shows both submits, the refused one with the fault, and a keyed submit's key.
    const keyed = await fetch(`${server.url}/v1/runs`, { method: 'POST', headers: { Authorization: `Bearer ${API_KEY}`, 'x-hermetic-namespace': 'e2e-faults', 'Idempotency-Key': 'order-42' }, body: '{"input":"keyed"}' });
    assert.equal(keyed.status, 202);
    await page.goto(`${server.url}/__admin/ui/#/e2e-faults/journal`);
    const row = page.locator('table tr', { hasText: 'order-42' });
    await row.waitFor();
    assert.equal(await page.locator('table tr', { hasText: '429' }).count(), 1);
    // Clearing the journal asks a second press: the first only says what the second does.
    const clear = page.locator('#journal-clear');
    await clear.click();
    assert.match(await clear.innerText(), /^Press again to clear the journal/);
    assert.equal(await row.count(), 1);
    await clear.click();
    await page.getByText('No requests match.').waitFor();
    assert.equal(await clear.innerText(), 'Clear the journal…');
    assert.deepEqual(s.problems, []);
  } finally {
    await s.close();
  }
});

test('the clock advances from the console, and a checkpoint is saved', async () => {
  const s = await openConsole('#/e2e-clock/time');
  try {
    const { page } = s;
    await signIn(page);
    await page.locator('#clock-now', { hasText: `(${T0}), frozen` }).waitFor();
    await page.getByLabel('Advance by (seconds)').fill('3600');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await page.locator('#clock-now', { hasText: `(${T0 + 3600}), frozen` }).waitFor();
    await page.locator('#clock', { hasText: '2026-09-12 00:36:40 UTC (frozen)' }).waitFor();
    await page.getByRole('button', { name: 'Save a checkpoint' }).click();
    await page.locator('#checkpoints-table tr', { hasText: 'cp_1@e2e-clock' }).waitFor();
    await page.locator('#checkpoints-branch', { hasText: 'main at cp_1@e2e-clock' }).waitFor();
    // Branches: one made at the checkpoint, checked out, and the one left deleted.
    await page.locator('#branches-table tr', { hasText: 'main (current)' }).waitFor();
    await page.getByRole('button', { name: 'Create branch' }).click();
    await page.locator('#problem', { hasText: 'New branch: give it a name.' }).waitFor();
    await page.getByLabel('Branch name').fill('retry');
    await page.getByLabel('At', { exact: true }).selectOption('cp_1@e2e-clock');
    await page.getByRole('button', { name: 'Create branch' }).click();
    await page.locator('#branches-table tr', { hasText: /retry\s*cp_1@e2e-clock/ }).waitFor();
    await page.getByRole('button', { name: 'Check out retry' }).click();
    await page.locator('#branches-table tr', { hasText: 'retry (current)' }).waitFor();
    await page.locator('#checkpoints-branch', { hasText: 'retry at cp_1@e2e-clock' }).waitFor();
    await page.getByRole('button', { name: 'Delete branch main' }).click();
    await page.locator('#notice', { hasText: 'Delete branch main: done.' }).waitFor();
    // The notice comes before the refresh that redraws the table: wait for the row to go, not for time.
    await page.locator('#branches-table tbody tr', { hasText: 'main' }).waitFor({ state: 'detached' });
    assert.deepEqual(await page.locator('#branches-table tbody tr td:first-child').allInnerTexts(), ['retry (current)']);
    await page.getByRole('button', { name: 'Automatic checkpoints: off' }).click();
    await page.getByRole('button', { name: 'Automatic checkpoints: on' }).waitFor();
    assert.deepEqual(s.problems, []);
  } finally {
    await s.close();
  }
});

test('the poll keeps a keyboard user\'s focus, the skip link keeps the place, an empty Set is no time, a reset of all asks twice', async () => {
  const s = await openConsole('#/e2e-focus/runs');
  try {
    const { page } = s;
    await signIn(page);
    const first = ((await (await submit('e2e-focus', 'one')).json()) as { run_id: string }).run_id;
    const link = page.locator('#runs-table a', { hasText: first });
    await link.focus();
    // A redraw with a new row in it (the poll brings the second run): the focus is on the same link after it.
    const second = ((await (await submit('e2e-focus', 'two')).json()) as { run_id: string }).run_id;
    await page.locator('#runs-table a', { hasText: second }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), first);
    // A run's policy form starts from the run's own policies (it sends every field: empty, it cleared the other).
    const admin = { Authorization: `Bearer ${ADMIN_KEY}`, 'x-hermetic-namespace': 'e2e-focus' };
    assert.equal((await fetch(`${server.url}/__admin/runs/${first}/steer-policy`, { method: 'POST', headers: admin, body: '{"accept": false, "raise": "nope"}' })).status, 200);
    assert.equal((await fetch(`${server.url}/__admin/runs/${first}/stop-policy`, { method: 'POST', headers: admin, body: '{"acknowledge": false}' })).status, 200);
    await page.goto(`${server.url}/__admin/ui/#/e2e-focus/runs/${first}`);
    await page.locator('#run-info', { hasText: 'refused, raises "nope" (first)' }).waitFor();
    assert.deepEqual([await page.inputValue('#steer-accept'), await page.inputValue('#steer-raise'), await page.inputValue('#stop-ack')], ['false', 'nope', 'false']);
    await page.goto(`${server.url}/__admin/ui/#/e2e-focus/runs`);
    await page.locator('#runs-table a', { hasText: first }).waitFor();
    // The skip link moves the focus to the section; the address, a place in the console, stays (it made a namespace "main").
    await page.focus('a.skip');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'main');
    assert.equal(new URL(page.url()).hash, '#/e2e-focus/runs');
    assert.equal(await page.locator('#section-title').innerText(), 'Runs — e2e-focus');
    // Set with nothing in the field says so and leaves the clock (Number('') is 0: 1970).
    await page.goto(`${server.url}/__admin/ui/#/e2e-focus/time`);
    await page.locator('#clock-now', { hasText: `(${T0}), frozen` }).waitFor();
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await page.locator('#problem', { hasText: 'Set: give the time to set, in epoch seconds.' }).waitFor();
    await page.locator('#clock-now', { hasText: `(${T0}), frozen` }).waitFor();
    // On a phone, a wide table scrolls in its box, not the page.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const section of ['runs', 'journal']) {
      await page.goto(`${server.url}/__admin/ui/#/e2e-focus/${section}`);
      await page.locator('table').first().waitFor();
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, `${section} at 390 px`);
    }
    // Resetting every namespace asks a second press; leaving the button disarms it.
    await page.goto(`${server.url}/__admin/ui/#/e2e-focus/namespaces`);
    const all = page.locator('#reset-all');
    await all.click();
    assert.match(await all.innerText(), /^Press again to reset every namespace/);
    await page.getByRole('link', { name: 'e2e-focus' }).first().focus();
    assert.equal(await all.innerText(), 'Reset every namespace…');
    const names = (await (await fetch(`${server.url}/__admin/namespaces`, { headers: { Authorization: `Bearer ${ADMIN_KEY}` } })).json()) as { namespaces: { name: string }[] };
    assert.ok(names.namespaces.some((n) => n.name === 'e2e-focus') && !names.namespaces.some((n) => n.name === 'main'), JSON.stringify(names));
    assert.deepEqual(s.problems, []);
  } finally {
    await s.close();
  }
});

test('keyboard only: skip link, the section tabs, focus moved to the section heading', async () => {
  const s = await openConsole('#/e2e-keys/runs');
  try {
    const { page } = s;
    // The key form takes focus; typing and Enter submit it.
    await page.getByLabel('Admin key').waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'admin-key');
    await page.keyboard.type(ADMIN_KEY);
    await page.keyboard.press('Enter');
    await page.locator('#section-title', { hasText: 'Runs' }).waitFor();
    // From the top of the page: the skip link first, and it lands on the content.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    // Tab on to the Journal tab, then Enter: the Journal section, focus on its heading.
    let tabs = 0;
    while ((await page.evaluate(() => document.activeElement?.textContent)) !== 'Journal') {
      await page.keyboard.press('Tab');
      assert.ok(++tabs < 30, 'the Journal tab is reachable with Tab');
    }
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'section-title' && document.activeElement.textContent?.startsWith('Journal'));
    assert.equal(await page.locator('nav a[aria-current="page"]').innerText(), 'Journal');
    // Every control has a name a screen reader reads.
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea')].filter((el) => !(el as HTMLInputElement).labels?.length && !el.getAttribute('aria-label')).map((el) => el.id));
    assert.deepEqual(unnamed, []);
    assert.deepEqual(s.problems, []);
  } finally {
    await s.close();
  }
});
