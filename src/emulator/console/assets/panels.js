// The namespace's other sections: the request journal (filter, count, clear), faults (presets, rules, hits), the
// scenarios and the runs they play, the clock with checkpoints and reset, and every namespace. Forms are built once;
// `refresh` (called every second) redraws only the tables, so nothing a person is typing is lost.
import { badge, field, fill, h, pretty, table, when } from './dom.js';

const OPERATIONS = ['', 'submit', 'get', 'events', 'approval', 'steer', 'stop', 'health', 'capabilities', 'sessions',
  'session_create', 'session', 'session_update', 'session_delete', 'session_messages', 'session_fork', 'session_chat', 'session_chat_stream', 'session_model_lock',
  'unsupported', 'other'];

const section = (id, title, ...children) => h('section', { 'aria-labelledby': id }, h('h3', { id }, title), ...children);

/** A form that sends a textarea's JSON as the body of a control route; text that is not JSON is refused, named `noun`. */
function jsonForm(ctx, { action, noun, label, textarea, route, button }) {
  return h('form', { onsubmit: (e) => {
    e.preventDefault();
    void ctx.act(action, async () => {
      let body;
      try { body = JSON.parse(textarea.value); } catch (err) { throw new Error(`The ${noun} is not JSON: ${err.message}`); }
      return ctx.call(route, { body });
    });
  } }, field(label, textarea), h('button', { type: 'submit' }, button));
}

export function journalView(main, ctx) {
  const operation = h('select', { id: 'journal-operation' }, OPERATIONS.map((o) => h('option', { value: o }, o || 'any')));
  const status = h('input', { id: 'journal-status', placeholder: '404, 4xx, 5xx', size: '10' });
  const runId = h('input', { id: 'journal-run', placeholder: 'run_…', size: '24' });
  const count = h('output', { id: 'journal-count', 'aria-live': 'polite' });
  const box = h('div', { id: 'journal-table' });
  const filter = () => ({ operation: operation.value || undefined, status: status.value.trim() || undefined, run_id: runId.value.trim() || undefined });
  const form = h('form', { class: 'row', 'aria-label': 'Journal filters', onsubmit: (e) => { e.preventDefault(); void ctx.act('Filter', async () => {}); } },
    field('Operation', operation), field('Status', status), field('Run', runId), h('button', { type: 'submit' }, 'Filter'));
  main.append(section('journal-title', 'Request journal',
    h('p', { class: 'hint' }, 'What clients sent to this namespace (control requests are not journaled), newest 200 shown.'),
    form,
    h('p', {}, 'Matching requests: ', count),
    twoPress({ id: 'journal-clear' }, 'Clear the journal…', 'Press again to clear the journal: every entry of this namespace goes',
      () => ctx.act('Clear the journal', () => ctx.call('clearRequests', { body: {} }))),
    box));
  return {
    async refresh() {
      const query = filter();
      const [{ requests, evicted }, counted] = await Promise.all([
        ctx.call('requests', { query: { ...query, limit: 200 } }),
        ctx.call('countRequests', { query }),
      ]);
      fill(count, String(counted.count), evicted ? ` (${evicted} older entries were pushed out)` : '');
      // Key: a submit's Idempotency-Key as the client sent it (a retry's is its first try's).
      fill(box, table('Journaled requests, oldest first', ['#', 'Time', 'Method', 'Path', 'Operation', 'Status', 'ms', 'Run', 'Key', 'Fault'],
        requests.map((r) => [String(r.seq), when(r.time), r.method, h('code', {}, r.path), r.operation, [badge(String(r.status)), r.replayed ? ' replayed' : null],
          r.duration_ms.toFixed(1), r.run_id ? h('a', { href: ctx.href('runs', r.run_id) }, h('code', {}, r.run_id)) : '—',
          r.idempotency_key === null || r.idempotency_key === undefined ? '—' : h('code', {}, r.idempotency_key), r.fault_id ?? '—']),
        'No requests match.'));
    },
  };
}

export function faultsView(main, ctx) {
  const presets = h('select', { id: 'fault-preset' });
  const presetHelp = h('p', { class: 'hint', id: 'fault-preset-help' });
  const rule = h('textarea', { id: 'fault-rule', rows: '4', spellcheck: 'false' }, '{"operation": "submit", "action": "respond", "status": 500, "body": "boom", "times": 1}');
  const box = h('div', { id: 'faults-table' });
  const total = h('output', { id: 'faults-fired' });
  let presetList = [];
  presets.addEventListener('change', () => fill(presetHelp, presetList.find((p) => p.name === presets.value)?.description ?? ''));
  main.append(
    section('fault-add-title', 'Add a fault',
      h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); void ctx.act(`Preset ${presets.value}`, () => ctx.call('addFault', { body: { preset: presets.value } })); } },
        field('Preset', presets), h('button', { type: 'submit', id: 'add-preset' }, 'Add preset')),
      presetHelp,
      jsonForm(ctx, { action: 'Rule', noun: 'rule', label: 'Rule (JSON, as POST /__admin/faults takes it)', textarea: rule, route: 'addFault', button: 'Add rule' })),
    section('fault-list-title', 'Rules',
      h('p', {}, 'Requests affected since the namespace started: ', total),
      twoPress({ id: 'faults-clear' }, 'Remove every rule…', 'Press again to remove every fault rule of this namespace',
        () => ctx.act('Remove every rule', () => ctx.call('clearFaults'))),
      box));
  ctx.call('faultPresets').then(({ presets: list }) => {
    presetList = list;
    fill(presets, list.map((p) => h('option', { value: p.name }, p.name)));
    fill(presetHelp, list[0]?.description ?? '');
  }, ctx.problem);
  return {
    async refresh() {
      const { faults, fired_total } = await ctx.call('faults');
      fill(total, String(fired_total));
      fill(box, table('Fault rules, in the order they are tried', ['Id', 'Preset', 'Matches', 'Action', 'Hits', 'Remaining', ''],
        faults.map((f) => [h('code', {}, f.id), f.preset ?? '—',
          (f.namespace === '*' ? 'every namespace: ' : '') + ([f.method, f.operation, f.path_prefix, f.run_id].filter(Boolean).join(' ') || 'any request'), f.action,
          String(f.fired), f.remaining === null ? 'no limit' : String(f.remaining),
          h('button', { type: 'button', 'aria-label': `Remove ${f.id}`, onclick: () => ctx.act(`Remove ${f.id}`, () => ctx.call('deleteFault', { param: f.id })) }, 'Remove')]),
        'No fault rules: every request reaches Hermes.'));
    },
  };
}

export function scenariosView(main, ctx) {
  const doc = h('textarea', { id: 'scenario-doc', rows: '6', spellcheck: 'false' },
    pretty({ scenarios: [{ name: 'quick-answer', steps: [{ complete: { output: 'Done.' } }] }] }));
  const box = h('div', { id: 'scenarios-table' });
  const fallback = h('p', { id: 'scenario-default' });
  main.append(
    section('scenario-load-title', 'Load scenarios',
      jsonForm(ctx, { action: 'Scenarios', noun: 'document', label: 'Scenario document (JSON, as POST /__admin/scenarios takes it)', textarea: doc, route: 'scenarios', button: 'Load' })),
    section('scenario-list-title', 'Scenarios and the runs they play', fallback,
      h('button', { type: 'button', class: 'danger', onclick: () => ctx.act('Remove every scenario', () => ctx.call('deleteScenarios', { body: {} })) }, 'Remove every scenario'),
      box));
  return {
    async refresh() {
      const [{ scenarios, default: dflt }, { runs }] = await Promise.all([ctx.call('getScenarios'), ctx.call('runs')]);
      // Which scenario plays each live run: GET /__admin/runs/{run_id} names it (the newest 50 live runs).
      const live = runs.filter((r) => r.live).slice(-50);
      const infos = await Promise.all(live.map((r) => ctx.call('run', { param: r.run_id }).catch(() => null)));
      const playing = new Map();
      for (const info of infos) if (info?.scenario) playing.set(info.scenario, [...(playing.get(info.scenario) ?? []), info.run_id]);
      fill(fallback, 'Runs no scenario matches: ', h('code', {}, typeof dflt === 'string' ? dflt : JSON.stringify(dflt)));
      fill(box, table('Scenarios, in matching order', ['Name', 'Match', 'Steps', 'Runs played', 'Playing now', ''],
        scenarios.map((s) => [h('code', {}, s.name), s.match ? h('code', {}, JSON.stringify(s.match)) : 'every run', String(s.steps.length), String(s.matched),
          (playing.get(s.name) ?? []).map((id) => h('a', { href: ctx.href('runs', id) }, h('code', {}, id), ' ')),
          h('button', { type: 'button', 'aria-label': `Remove ${s.name}`, onclick: () => ctx.act(`Remove ${s.name}`, () => ctx.call('deleteScenarios', { body: { name: s.name } })) }, 'Remove')]),
        'No scenarios: runs wait for the control plane.'));
    },
  };
}

export function timeView(main, ctx) {
  const now = h('output', { id: 'clock-now' });
  const advance = h('input', { id: 'clock-advance', type: 'number', step: 'any', min: '0', value: '60' });
  const set = h('input', { id: 'clock-set', type: 'number', step: 'any', min: '0', placeholder: 'epoch seconds' });
  const freeze = h('button', { type: 'button', id: 'clock-freeze' }, 'Freeze');
  const checkpoints = h('div', { id: 'checkpoints-table' });
  const branch = h('output', { id: 'checkpoints-branch' });
  const auto = h('button', { type: 'button', id: 'checkpoints-auto' }, 'Automatic checkpoints: off');
  const branches = h('div', { id: 'branches-table' });
  const branchName = h('input', { id: 'branch-name', placeholder: 'retry', size: '16', autocomplete: 'off', spellcheck: 'false' });
  const branchAt = h('select', { id: 'branch-at' }, h('option', { value: '' }, 'the head'));
  let frozen = false;
  let autoOn = false;
  const resetButton = twoPress({ id: 'reset' }, 'Reset this namespace…', 'Press again to reset: every run, row, fault and scenario goes',
    () => ctx.act('Reset', () => ctx.call('reset', { body: {} })));
  freeze.addEventListener('click', () => ctx.act(frozen ? 'Unfreeze' : 'Freeze', () => ctx.call('clock', { body: { freeze: !frozen } })));
  auto.addEventListener('click', () => ctx.act('Automatic checkpoints', () => ctx.call('setTimeline', { body: { auto: !autoOn } })));
  main.append(
    section('clock-title', 'Clock',
      h('p', {}, 'Now: ', now),
      h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); void ctx.act('Advance', () => ctx.call('clock', { body: { advance: Number(advance.value) } })); } },
        field('Advance by (seconds)', advance), h('button', { type: 'submit', id: 'clock-advance-go' }, 'Advance')),
      h('form', { class: 'row', onsubmit: (e) => {
        e.preventDefault();
        // An empty field is no time (Number('') is 0: the clock would go back to 1970).
        if (set.value.trim() === '') return ctx.problem(new Error('Set: give the time to set, in epoch seconds.'));
        void ctx.act('Set', () => ctx.call('clock', { body: { set: Number(set.value) } }));
      } },
        field('Set to (epoch seconds)', set), h('button', { type: 'submit' }, 'Set')),
      freeze),
    section('checkpoints-title', 'Checkpoints',
      h('p', { class: 'hint' }, 'A checkpoint keeps this namespace\'s runs, rows, clock, settings, faults and scenarios. Automatic ones follow each request that changed it (its answer names it in x-hermetic-checkpoint).'),
      h('p', {}, 'Branch: ', branch),
      h('div', { class: 'row' },
        h('button', { type: 'button', id: 'checkpoint-save', onclick: () => ctx.act('Save checkpoint', () => ctx.call('checkpoint', { body: {} })) }, 'Save a checkpoint'),
        auto),
      checkpoints),
    section('branches-title', 'Branches',
      h('p', { class: 'hint' }, 'A branch is a line of checkpoints to come back to. Checking one out takes its head\'s state (a branch with no checkpoint yet keeps the state as it is); deleting one forgets its name, not its checkpoints.'),
      branches,
      h('form', { class: 'row', 'aria-label': 'New branch', onsubmit: (e) => {
        e.preventDefault();
        const name = branchName.value.trim();
        if (name === '') return ctx.problem(new Error('New branch: give it a name.'));
        const body = branchAt.value ? { checkpoint: branchAt.value } : {};
        void ctx.act(`Branch ${name}`, async () => {
          const made = await ctx.call('createBranch', { param: name, body });
          branchName.value = '';
          return made;
        });
      } },
        field('Branch name', branchName), field('At', branchAt), h('button', { type: 'submit', id: 'branch-create' }, 'Create branch'))),
    section('reset-title', 'Reset', resetButton));
  return {
    async refresh() {
      const [clock, timeline] = await Promise.all([ctx.call('getClock'), ctx.call('timeline')]);
      frozen = clock.frozen;
      autoOn = timeline.auto;
      fill(now, `${when(clock.now)} (${clock.now})${clock.frozen ? ', frozen' : ', running'}`);
      fill(freeze, frozen ? 'Unfreeze' : 'Freeze');
      fill(auto, `Automatic checkpoints: ${autoOn ? 'on' : 'off'}`);
      fill(branch, h('code', {}, timeline.branch), timeline.head ? ` at ${timeline.head}` : ', no checkpoint yet');
      fill(checkpoints, table('Checkpoints, oldest first', ['Id', 'Taken at', 'Branch', 'Parent', 'After', 'Runs', 'Durable rows', '', ''],
        timeline.checkpoints.map((c) => [h('code', {}, c.id), when(c.taken_at), c.branch, c.parent ?? '—', c.request ?? 'saved by hand', String(c.runs), String(c.durable_rows),
          h('button', { type: 'button', 'aria-label': `Restore ${c.id}`, onclick: () => ctx.act(`Restore ${c.id}`, () => ctx.call('restoreCheckpoint', { param: c.id, body: {} })) }, 'Restore'),
          h('button', { type: 'button', 'aria-label': `Delete ${c.id}`, onclick: () => ctx.act(`Delete ${c.id}`, () => ctx.call('deleteCheckpoint', { param: c.id })) }, 'Delete')]),
        'No checkpoints yet.'));
      fill(branches, table('Branches', ['Branch', 'Head', '', ''],
        Object.entries(timeline.branches).map(([name, head]) => [[h('code', {}, name), name === timeline.branch ? ' (current)' : null], head ? h('code', {}, head) : 'no checkpoint yet',
          h('button', { type: 'button', 'aria-label': `Check out ${name}`, onclick: () => ctx.act(`Check out ${name}`, () => ctx.call('checkoutBranch', { param: name, body: {} })) }, 'Check out'),
          name === timeline.branch ? '' : h('button', { type: 'button', 'aria-label': `Delete branch ${name}`, onclick: () => ctx.act(`Delete branch ${name}`, () => ctx.call('deleteBranch', { param: name })) }, 'Delete')])));
      // The checkpoints a new branch may start at; the choice made stays while it is still there.
      const ids = ['', ...timeline.checkpoints.map((c) => c.id)];
      if ([...branchAt.options].map((o) => o.value).join('\n') !== ids.join('\n')) {
        const chosen = branchAt.value;
        fill(branchAt, ids.map((id) => h('option', { value: id }, id || 'the head')));
        branchAt.value = ids.includes(chosen) ? chosen : '';
      }
    },
  };
}

/** A button that asks to be pressed twice (the first press says what the second does; leaving it disarms it). */
function twoPress(attrs, label, armedLabel, action) {
  const button = h('button', { type: 'button', class: 'danger', ...attrs }, label);
  let armed = false;
  const disarm = () => { armed = false; button.textContent = label; };
  button.addEventListener('click', () => {
    if (!armed) {
      armed = true;
      button.textContent = armedLabel;
      return;
    }
    disarm();
    void action();
  });
  button.addEventListener('blur', disarm);
  return button;
}

export function namespacesView(main, ctx) {
  const box = h('div', { id: 'namespaces-table' });
  main.append(section('namespaces-list-title', 'Namespaces',
    h('p', { class: 'hint' }, 'A namespace is created by its first request (x-hermetic-namespace header or a /ns/<name>/ prefix).'),
    box,
    twoPress({ id: 'reset-all' }, 'Reset every namespace…', 'Press again to reset every namespace: the default starts over, the others are forgotten',
      () => ctx.act('Reset every namespace', () => ctx.call('reset', { body: { all: true } })))));
  return {
    async refresh() {
      const { namespaces } = await ctx.call('namespaces');
      // First used: by the wall clock (a namespace's own clock may be anywhere).
      fill(box, table('Namespaces, the default first', ['Name', 'Runs', 'Live', 'First used (wall clock)'],
        namespaces.map((n) => [h('a', { href: ctx.href('runs', null, n.name), 'aria-current': n.name === ctx.ns ? 'true' : false }, n.name),
          String(n.runs), String(n.live_runs), when(n.created_at)])));
    },
  };
}
