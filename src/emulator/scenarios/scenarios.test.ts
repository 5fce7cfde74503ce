// Scenario documents from every door (option, file, checkpoint) and a book's snapshot and restore.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { HermeticError } from '../../shared/errors.js';
import { PyFloat, parsePyJson } from '../../shared/python/index.js';
import { fromFetchRequest } from '../fetch.js';
import { createEmulator } from '../index.js';
import { Namespaces } from '../namespaces/index.js';
import { parseEmulatorOptions, type EmulatorOptions } from '../options.js';
import { realLockWait } from '../store/busy.js';
import { openRunTable } from '../store/db.js';
import { loadScenarioFile, parseScenarioText, readScenarios } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'hermetic-scenarios-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function refused(fn: () => unknown, code: string, message: string): void {
  assert.throws(fn, (e: HermeticError) => {
    assert.deepEqual([e.code, e.message], [code, message]);
    return true;
  });
}

test('the scenarios option is read as the route reads a body, its mistakes are HERMETIC_OPTIONS_INVALID', () => {
  refused(
    () => createEmulator({ scenarios: { scenarioz: [] } as never }),
    'HERMETIC_OPTIONS_INVALID',
    'Option "scenarios": Unknown field "scenarioz" for a scenarios document. Did you mean "scenarios"?',
  );
  refused(
    () => createEmulator({ scenarios: [{ steps: [{ at: 1, complete: { usage: { input_tokens: -1 } } }] }] }),
    'HERMETIC_OPTIONS_INVALID',
    'Option "scenarios", scenarios[0].steps[0].complete: Field "input_tokens" must be a non-negative integer.',
  );
  refused(() => createEmulator({ scenarios: [{ steps: [{ hang: () => 1 }] }] as never }), 'HERMETIC_OPTIONS_INVALID', 'Option "scenarios[0].steps[0].hang" must be JSON data (objects, lists, strings, numbers, booleans, null); got function.');
  refused(() => createEmulator({ scenarios: 42 as never }), 'HERMETIC_OPTIONS_INVALID', 'Option "scenarios": must be an object {"scenarios": [...], "default": ...} or a list of scenarios; got 42.');
  // A long value is quoted cut, with its length: a whole file given by mistake is not echoed back.
  refused(() => createEmulator({ scenarios: { default: 'w'.repeat(300) } as never }), 'HERMETIC_OPTIONS_INVALID',
    `Option "scenarios", default: must be "manual", {"complete_after": seconds, "output", "usage"} or {"steps": […], "start_delay"}; got "${'w'.repeat(76)}… (302 characters).`);
  // A list, a document, a file path, or what loadScenarioFile read.
  for (const scenarios of [[{ steps: [] }], { default: 'manual' as const }, 'examples/scenarios.yaml', loadScenarioFile('examples/scenarios.yaml')]) {
    const parsed = parseEmulatorOptions({ scenarios });
    assert.ok(parsed.scenarios);
  }
  assert.equal(parseEmulatorOptions({}).scenarios, null);
});

test('a scenarios option that holds itself (a YAML config file\'s alias, or an object cycle) is HERMETIC_OPTIONS_INVALID', () => {
  const steps: unknown[] = [];
  steps.push({ complete: { output: steps } });
  refused(() => createEmulator({ scenarios: [{ name: 'x', steps }] as never }), 'HERMETIC_OPTIONS_INVALID',
    'Option "scenarios[0].steps[0].complete.output" holds itself (a cycle, or a YAML alias inside the node it names): give JSON data.');
  // The same value twice, side by side, is no cycle.
  const done = [{ complete: { output: 'ok' } }];
  assert.equal(parseEmulatorOptions({ scenarios: [{ name: 'a', steps: done }, { name: 'b', steps: done }] }).scenarios?.scenarios.length, 2);
});

test('a JavaScript number is an int when integral, a float otherwise; a file keeps what it wrote (2.0 stays a float)', () => {
  const fromJs = parseEmulatorOptions({ scenarios: [{ steps: [{ event: { event: 'tool.completed', tool: 't', duration: 2 } }, { event: { event: 'tool.completed', tool: 't', duration: 2.5 } }] }] });
  const durations = fromJs.scenarios!.scenarios[0]!.steps.map((s) => (s.action.kind === 'event' ? (s.action.event as { duration: unknown }).duration : null));
  assert.deepEqual(durations, [2, 2.5]);
  const yaml = parseScenarioText('scenarios:\n  - steps:\n      - event: { event: tool.completed, tool: t, duration: 2.0 }\n      - event: { event: tool.completed, tool: t, duration: 2 }\n      - event: { event: tool.completed, tool: t, duration: 1e400 }\n', 'a.yaml');
  const json = parseScenarioText('{"scenarios": [{"steps": [{"event": {"event": "tool.completed", "tool": "t", "duration": 2.0}}]}]}', 'a.json');
  const read = (value: ReturnType<typeof parseScenarioText>) =>
    readScenarios(value, 'x').scenarios[0]!.steps.map((s) => (s.action.kind === 'event' ? (s.action.event as { duration: unknown }).duration : null));
  assert.deepEqual(read(yaml), [new PyFloat(2), 2, new PyFloat(Infinity)]);
  assert.deepEqual(read(json), [new PyFloat(2)]);
});

test('a scenarios file that cannot be read or parsed is one sentence with HERMETIC_SCENARIO_INVALID', () => {
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  refused(() => loadScenarioFile(join(dir, 'missing.yaml'), 'missing.yaml'), 'HERMETIC_SCENARIO_INVALID', 'The scenarios file missing.yaml does not exist.');
  refused(() => loadScenarioFile(dir, 'folder'), 'HERMETIC_SCENARIO_INVALID', 'The scenarios file folder is a folder, not a file.');
  refused(() => loadScenarioFile(write('bad.yaml', 'scenarios: [\n'), 'bad.yaml'), 'HERMETIC_SCENARIO_INVALID',
    'bad.yaml is not valid YAML (Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1).');
  refused(() => loadScenarioFile(write('dup.yaml', 'default: manual\ndefault: manual\n'), 'dup.yaml'), 'HERMETIC_SCENARIO_INVALID', 'dup.yaml is not valid YAML (Map keys must be unique at line 2, column 1).');
  refused(() => loadScenarioFile(write('bad.json', '{"scenarios": [}'), 'bad.json'), 'HERMETIC_SCENARIO_INVALID', 'bad.json is not valid JSON (Expecting value: line 1 column 16 (char 15)).');
  refused(() => loadScenarioFile(write('keys.yaml', 'scenarios:\n  - steps: []\n    1: x\n'), 'keys.yaml'), 'HERMETIC_SCENARIO_INVALID', 'keys.yaml: a mapping key is 1; keys must be strings.');
  refused(() => loadScenarioFile(write('step.yaml', 'scenarios:\n  - name: s\n    steps:\n      - { at: 1, complte: {} }\n'), 'step.yaml'), 'HERMETIC_SCENARIO_INVALID',
    'step.yaml, scenario "s".steps[0]: Unknown field "complte" for a step. Did you mean "complete"?');
  assert.equal(loadScenarioFile(write('empty.yaml', '# nothing yet\n'), 'empty.yaml').scenarios.length, 0);
});

test('YAML aliases in a scenarios file: reused as written, refused when one holds itself or they expand past 10,000 values', () => {
  const reused = readScenarios(parseScenarioText('scenarios:\n  - { name: a, steps: &done [{ complete: { output: ok } }] }\n  - { name: b, steps: *done }\n', 'ok.yaml'), 'ok.yaml');
  assert.deepEqual(reused.scenarios.map((s) => [s.name, s.steps.length]), [['a', 1], ['b', 1]]);
  refused(() => parseScenarioText('scenarios: &s\n  - name: x\n    steps: *s\n', 'self.yaml'), 'HERMETIC_SCENARIO_INVALID',
    'self.yaml: the alias *s names a node that holds it; a value cannot contain itself.');
  // Nine levels of ten aliases each would be a billion values (the "billion laughs").
  const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++) levels.push(`${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${Array(10).fill(`*${'abcdefghi'[i - 1]}`).join(', ')}]`);
  refused(() => parseScenarioText(`${levels.join('\n')}\nscenarios: []\n`, 'laughs.yaml'), 'HERMETIC_SCENARIO_INVALID',
    'laughs.yaml: its aliases expand to more than 10,000 values; write the repeated parts out, or repeat less.');
});

test("a namespace's book: snapshot and restore bring back the scenarios, counts and each run's place (the approval it waits on)", async () => {
  const options = parseEmulatorOptions({
    time: 1789169800, frozen: true, seed: 'book',
    scenarios: { scenarios: [{ name: 'ask', steps: [{ at: 1, approval: { command: 'x', request_id: 'R' }, timeout: 10, on_timeout: [{ at: 2, fail: { error: 'late' } }] }, { at: 3, complete: { output: 'ok' } }] }] },
  } satisfies EmulatorOptions);
  const lock = realLockWait(1000);
  const namespaces = new Namespaces({ options, lock, openStore: () => openRunTable(':memory:', { kind: 'fast', lock, onBackgroundError: (e) => assert.fail(String(e)) }), onInternalError: (e) => assert.fail(String(e)) });
  const ns = namespaces.default;
  const send = async (method: string, path: string, body?: string) => {
    const res = await ns.handle(fromFetchRequest(new Request(`http://h${path}`, { method, body })));
    return typeof res.body === 'string' ? res.body : new TextDecoder().decode(res.body ?? new Uint8Array());
  };
  try {
    const runId = (parsePyJson(await send('POST', '/v1/runs', '{"input": "x"}')) as Map<string, string>).get('run_id')!;
    await new Promise((r) => setImmediate(r));
    ns.clock.advance(1);
    const saved = ns.scenarios.snapshot();
    assert.deepEqual(JSON.parse(JSON.stringify(saved)), saved, 'JSON-able');
    assert.deepEqual(saved.plays.map((p) => [p.run_id, p.scenario, p.index, p.waiting?.request_id]), [[runId, 'ask', 1, '"R"']]);
    const checkpoint = ns.checkpoint();
    const outcome = async () => {
      ns.clock.advance(10); // the timeout: on_timeout's fail 1 s later
      ns.clock.advance(1);
      return send('GET', `/v1/runs/${runId}`);
    };
    const first = await outcome();
    assert.match(first, /"status": "failed".*"error": "late"/);
    ns.scenarios.clear();
    for (let round = 0; round < 2; round++) {
      ns.restoreCheckpoint(checkpoint.id);
      assert.equal(ns.scenarios.playing(runId), 'ask');
      assert.equal(await outcome(), first, `round ${round}`);
    }
    // A reset goes back to the options' scenarios and forgets the plays.
    ns.reset();
    assert.equal(ns.scenarios.playing(runId), null);
    assert.deepEqual([...(ns.scenarios.describe().get('scenarios') as Array<Map<string, unknown>>)].map((s) => s.get('name')), ['ask']);
  } finally {
    namespaces.close();
  }
});

test('the example in admin-api.md § Scenarios is a valid scenarios file', () => {
  const doc = readFileSync('docs/reference/admin-api.md', 'utf8');
  const section = doc.slice(doc.indexOf('## Scenarios'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(yaml, 'the section has a YAML example');
  const set = readScenarios(parseScenarioText(yaml, 'admin-api.md'), 'admin-api.md');
  assert.deepEqual(set.scenarios.map((s) => s.name), ['dangerous']);
  assert.ok(set.fallback?.scenario);
});
