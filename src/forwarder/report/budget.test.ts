import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkBudgetGrouping, describeOverBudget, overBudget, parseMaxCost } from './budget.js';
import type { UsageReport } from './query.js';

/** A report of the given rows (the totals do not matter to the budget). */
const reportOf = (by: UsageReport['by'], rows: UsageReport['rows']): UsageReport => ({ period: { since: null, until: null }, by, totals: {} as UsageReport['totals'], rows });

describe('--max-cost (decision 0115)', () => {
  it('reads an amount in dollars, with or without $; refuses anything else', () => {
    assert.deepEqual(['5', '0.50', '$12', ' 3 ', '.5', '0', '1.'].map(parseMaxCost), [5, 0.5, 12, 3, 0.5, 0, 1]);
    for (const bad of ['', '$', '.', '-1', '-0', '1e3', '1e309', '9'.repeat(400), 'NaN', 'Infinity', '5 dollars', '0x10', '1,000', '\u0663']) assert.throws(() => parseMaxCost(bad), { code: 'HERMETIC_CLI_USAGE' }, bad);
    assert.throws(() => checkBudgetGrouping(['day', 'tool']), { code: 'HERMETIC_REPORT_INVALID' });
    checkBudgetGrouping(['hour', 'session']);
  });

  it('over: strictly more than the limit, the costliest first; a row with no cost known is never over', () => {
    const r = reportOf(['hour'], [
      { hour: '2026-12-05 01:00', cost_usd: 5 }, { hour: '2026-12-05 02:00', cost_usd: 5.01 }, { hour: '2026-12-05 03:00', cost_usd: null },
      { hour: '2026-12-05 04:00', cost_usd: 9.5 },
    ]);
    assert.deepEqual(overBudget(r, 5)?.over.map((x) => x.hour), ['2026-12-05 04:00', '2026-12-05 02:00']);
    assert.equal(overBudget(r, 9.5), null);
    assert.deepEqual(describeOverBudget(overBudget(r, 5)!), [
      'over budget: 2 of 4 hours cost more than $5.00 (--max-cost):', '  2026-12-05 04:00  $9.50', '  2026-12-05 02:00  $5.01',
    ]);
  });

  it('names rows by their keys, harmless on a terminal: titles, a missing one, main for the main loop; ten named, the rest counted', () => {
    const sessions = reportOf(['session', 'task'], Array.from({ length: 12 }, (_, i) => ({ session_id: `s${i}`, title: i === 0 ? null : `t\x1b[31m${i}`, task: i === 1 ? '' : 'vision', cost_usd: 100 - i })));
    const lines = describeOverBudget(overBudget(sessions, 1)!);
    assert.equal(lines[0], 'over budget: 12 of 12 rows by session and task cost more than $1.00 (--max-cost):');
    assert.equal(lines[1], '  s0 (untitled) · vision  $100');
    assert.equal(lines[2], '  s1 (t␛[31m1) · main     $99.00', 'the costs in one column');
    assert.deepEqual([lines.length, lines.at(-1)], [12, '  and 2 more']);
    // The window alone (no grouping), and a grouping of one row.
    assert.deepEqual(describeOverBudget(overBudget(reportOf([], [{ cost_usd: 1234.5 }]), 1000)!), ['over budget: this window cost $1,235, more than $1,000 (--max-cost).']);
    assert.deepEqual(describeOverBudget(overBudget(reportOf(['tree'], [{ tree: 'root', tree_title: 'the task', cost_usd: 3 }]), 2)!), ['over budget: the only tree cost more than $2.00 (--max-cost):', '  root (the task)  $3.00']);
  });

  it('the limit as it was given, and a row over it never shown as its equal (decision 0117)', () => {
    const r = reportOf(['hour'], [{ hour: '01:00', cost_usd: 0.00504 }, { hour: '02:00', cost_usd: 0.00002 }, { hour: '03:00', cost_usd: 100.4 }]);
    // $0.0050 and <$0.0001 would hide the limit typed; a row over it is shown with the digits that tell it apart.
    assert.deepEqual(describeOverBudget(overBudget(r, 0.00001)!), [
      'over budget: 3 of 3 hours cost more than $0.00001 (--max-cost):', '  03:00  $100', '  01:00  $0.0050', '  02:00  $0.00002',
    ]);
    assert.deepEqual(describeOverBudget(overBudget(r, 0.005)!).slice(0, 1), ['over budget: 2 of 3 hours cost more than $0.0050 (--max-cost):']);
    assert.deepEqual(describeOverBudget(overBudget(r, 0.005)!)[2], '  01:00  $0.00504');
    assert.deepEqual(describeOverBudget(overBudget(r, 100.25)!), ['over budget: 1 of 3 hours cost more than $100.25 (--max-cost):', '  03:00  $100.40']);
    assert.deepEqual(describeOverBudget(overBudget(reportOf([], [{ cost_usd: 5.004 }]), 5)!), ['over budget: this window cost $5.004, more than $5.00 (--max-cost).']);
  });

  it('a title or key of 300,000 characters is cut to a line cron can mail; a session id stays whole (decision 0117)', () => {
    const id = `20260701_120000_${'a'.repeat(40)}`;
    const r = reportOf(['session', 'project'], [{ session_id: id, title: '数'.repeat(300_000), project: `/home/${'x/'.repeat(100_000)}service`, cost_usd: 7 }]);
    const [, line] = describeOverBudget(overBudget(r, 1)!);
    assert.ok(line!.length < 200, `${line!.length} characters`);
    assert.ok(line!.startsWith(`  ${id} (数数`) && line!.includes('…) · …/x/') && line!.endsWith('/service  $7.00'), line!.slice(0, 300));
  });
});
