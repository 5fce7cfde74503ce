// Runs: the namespace's runs with live status, and one run's page — what the fake agent holds, the buttons that
// play it, its pending approvals with their choices, its steer and stop policies, and the status object and event
// stream as Hermes answers them. The live view polls control routes (never journaled); the Hermes reads are a
// client's requests, so they are made when the run changes or when asked (decision 0042).
import { ApiError, stream } from './api.js';
import { badge, field, fill, h, pretty, table } from './dom.js';

const EVENTS = ['tool.started', 'tool.completed', 'reasoning.available', 'message.delta'];
const DEFAULT_CHOICES = ['once', 'session', 'always', 'deny'];
const SHOWN = 200;

/** The body of POST …/event for `name`, from the text box and the tool name. */
function eventBody(name, text, tool) {
  switch (name) {
    case 'tool.started': return { event: name, tool: tool || 'terminal', preview: text || null };
    case 'tool.completed': return { event: name, tool: tool || 'terminal' };
    case 'reasoning.available': return { event: name, text: text || null };
    default: return { event: 'message.delta', delta: text || '' };
  }
}

/** Hermes's CORS refusal (a bare 403 before anything else, spec runs-api §2.4) as a sentence saying what to do. */
function corsHint(error) {
  if (!(error instanceof ApiError) || error.status !== 403 || error.code) return error;
  return new Error(`Hermes refused this page's request (403): it refuses a browser's Origin that --cors-origins (API_SERVER_CORS_ORIGINS) does not list. Start the server with --cors-origins ${location.origin}, or answer with your client (POST /v1/runs/{run_id}/approval).`);
}

export function runsView(main, ctx) {
  const listBox = h('div', { id: 'runs-table' }, h('p', { class: 'empty' }, 'Loading…'));
  const detail = h('section', { id: 'run-detail', class: 'detail', 'aria-labelledby': 'run-title' });
  main.append(h('div', { class: 'split' },
    h('section', { 'aria-labelledby': 'runs-title' },
      h('h3', { id: 'runs-title' }, 'Runs'),
      h('p', { class: 'hint' }, 'Every run in the gateway\'s memory, oldest first, updated every second. Submit runs with your client (POST /v1/runs).'),
      listBox),
    detail));

  let selected = null;
  let seen = null; // the selected run's status and last event when its status object was last read
  let page = null;
  let detach = null;

  const readStatusObject = async () => {
    if (!page) return;
    try {
      const { text } = await ctx.call('hermesRun', { param: selected, raw: true });
      fill(page.status, text);
      page.statusObject = JSON.parse(text);
    } catch (e) {
      page.statusObject = null;
      fill(page.status, e instanceof ApiError && e.status === 401
        ? `${e.message} — enter the Hermes API key under Keys to read it.`
        : `GET /v1/runs/${selected}: ${e.message}`);
    }
    renderApprovals();
  };

  const renderApprovals = () => {
    if (!page) return;
    const approval = page.statusObject?.approval;
    const pending = page.info?.pending_approvals ?? [];
    if (!pending.length && !approval) return fill(page.approvals, h('p', { class: 'empty' }, 'No approval pending.'));
    const ids = pending.length ? pending : [approval.request_id];
    fill(page.approvals, ids.map((id, i) => {
      const shown = i === 0 && approval && approval.request_id === id ? approval : null;
      const choices = shown?.choices ?? DEFAULT_CHOICES;
      return h('div', { class: 'approval' },
        h('p', {}, h('strong', {}, 'Request '), h('code', {}, id), shown?.command ? [' — ', h('code', {}, shown.command)] : null),
        h('div', { class: 'buttons', role: 'group', 'aria-label': `Choices for ${id}` }, choices.map((choice) =>
          h('button', { type: 'button', onclick: () => ctx.act(`Approval ${choice}`, () => ctx.call('hermesApproval', { param: selected, body: { choice, request_id: id } }).catch((e) => { throw corsHint(e); })) }, choice))));
    }), h('p', { class: 'hint' }, 'A choice is sent as POST /v1/runs/{run_id}/approval, as a client sends it. A browser\'s POST carries an Origin, which Hermes refuses (403) unless --cors-origins lists this page\'s origin.'));
  };

  const stopStream = () => {
    detach?.abort();
    detach = null;
  };

  const build = () => {
    stopStream();
    page = null;
    if (!selected) {
      fill(detail, h('p', { class: 'empty' }, 'Choose a run to see its status object and events and to play its agent.'));
      return;
    }
    const text = h('textarea', { id: 'agent-text', rows: '2' });
    const tool = h('input', { id: 'agent-tool', value: 'terminal' });
    const eventName = h('select', { id: 'agent-event' }, EVENTS.map((e) => h('option', { value: e }, e)));
    const raiseKind = h('select', { id: 'raise-kind' }, ['error', 'provider_auth', 'cancelled'].map((k) => h('option', { value: k }, k)));
    const steerAccept = h('select', { id: 'steer-accept' }, h('option', { value: 'true' }, 'accepts steer text'), h('option', { value: 'false' }, 'refuses steer text'));
    const steerRaise = h('input', { id: 'steer-raise', placeholder: 'leave empty: does not raise' });
    const stopAck = h('select', { id: 'stop-ack' }, h('option', { value: 'true' }, 'honours a stop'), h('option', { value: 'false' }, 'ignores a stop'));
    const run = (label, name, body) => () => ctx.act(label, () => ctx.call(name, { param: selected, body: body() }));
    const value = () => text.value.trim();
    page = {
      info: null,
      statusObject: null,
      infoBox: h('dl', { class: 'facts', id: 'run-info' }),
      status: h('pre', { id: 'status-object', tabindex: '0', 'aria-label': 'Status object' }, 'Reading…'),
      approvals: h('div', { id: 'approvals' }),
      events: h('ol', { id: 'events', class: 'events', 'aria-live': 'polite' }),
      attach: h('button', { type: 'button', id: 'attach' }, 'Attach to the event stream'),
      // The policy form, filled once from the run's own policies (it sends every field: an empty one would clear it).
      policy: { steerAccept, steerRaise, stopAck, filled: false },
    };
    page.attach.addEventListener('click', () => (detach ? stopStream() : attach()));
    fill(detail,
      h('h3', { id: 'run-title' }, 'Run ', h('code', {}, selected)),
      page.infoBox,
      h('fieldset', {},
        h('legend', {}, 'Play the agent'),
        field('Text', text, 'The output (Complete, Cancel), error (Fail), message (Raise), command (approval) or event text.'),
        h('div', { class: 'row' }, field('Event', eventName), field('Tool', tool), field('Raise as', raiseKind)),
        h('div', { class: 'buttons' },
          h('button', { type: 'button', onclick: run('Start', 'start', () => ({})) }, 'Start'),
          h('button', { type: 'button', onclick: run('Event', 'event', () => eventBody(eventName.value, value(), tool.value.trim())) }, 'Send event'),
          h('button', { type: 'button', onclick: run('Approval request', 'approvalRequest', () => ({ command: value() || 'rm -rf build/', description: 'recursive delete' })) }, 'Request approval'),
          h('button', { type: 'button', class: 'primary', onclick: run('Complete', 'complete', () => ({ output: value() })) }, 'Complete'),
          h('button', { type: 'button', onclick: run('Fail', 'fail', () => ({ error: value() || null })) }, 'Fail'),
          h('button', { type: 'button', onclick: run('Raise', 'raise', () => ({ message: value(), kind: raiseKind.value })) }, 'Raise'),
          h('button', { type: 'button', onclick: run('Cancel', 'cancel', () => ({ output: value() })) }, 'Cancel'))),
      h('section', { 'aria-labelledby': 'approvals-title' }, h('h4', { id: 'approvals-title' }, 'Pending approvals'), page.approvals),
      h('fieldset', {},
        h('legend', {}, 'Steer and stop policies'),
        h('div', { class: 'row' }, field('agent.steer()', steerAccept), field('raises', steerRaise),
          h('button', { type: 'button', onclick: run('Steer policy', 'steerPolicy', () => ({ accept: steerAccept.value === 'true', raise: steerRaise.value.trim() || null })) }, 'Set steer policy')),
        h('div', { class: 'row' }, field('the interrupt', stopAck),
          h('button', { type: 'button', onclick: run('Stop policy', 'stopPolicy', () => ({ acknowledge: stopAck.value === 'true' })) }, 'Set stop policy'))),
      h('section', { 'aria-labelledby': 'status-title' },
        h('h4', { id: 'status-title' }, 'Status object (GET /v1/runs/{run_id})'),
        h('button', { type: 'button', onclick: () => readStatusObject() }, 'Read it again'),
        page.status),
      h('section', { 'aria-labelledby': 'events-title' },
        h('h4', { id: 'events-title' }, 'Event stream (GET /v1/runs/{run_id}/events)'),
        h('p', { class: 'hint' }, 'Hermes\'s subscribers compete for events, and the run\'s buffer goes when one leaves: attaching here takes events from your client.'),
        page.attach,
        page.events));
  };

  const attach = () => {
    const controller = new AbortController();
    detach = controller;
    const events = page.events;
    const button = page.attach;
    button.textContent = 'Detach from the event stream';
    stream(selected, ctx.ns, (data) => {
      let label = data;
      try {
        const parsed = JSON.parse(data);
        label = parsed.event ?? data;
      } catch { /* a comment frame such as ": stream closed" */ }
      events.append(h('li', {}, h('strong', {}, label), ' ', h('code', {}, data)));
    }, controller.signal)
      .then(() => events.append(h('li', { class: 'hint' }, 'The stream ended.')))
      .catch((e) => { if (e.name !== 'AbortError') events.append(h('li', { class: 'problem-text' }, e.message)); })
      .finally(() => {
        if (detach === controller) detach = null;
        button.textContent = 'Attach to the event stream';
      });
  };

  const renderList = (all) => {
    // The newest SHOWN runs: a table of thousands redrawn every second would make the page sluggish.
    const runs = all.slice(-SHOWN);
    const older = all.length - runs.length;
    fill(listBox, older ? h('p', { class: 'hint' }, `${older} older runs are not shown.`) : null, table('Runs', ['Run', 'Status', 'Live', 'Last event', 'Keyed'], runs.map((r) => [
      h('a', { href: ctx.href('runs', r.run_id), 'aria-current': r.run_id === selected ? 'true' : false }, h('code', {}, r.run_id)),
      badge(r.status), r.live ? 'yes' : 'no', r.last_event ?? '—', r.keyed ? 'yes' : 'no',
    ]), 'No runs yet: submit one with your client (POST /v1/runs).'));
  };

  const renderInfo = (info) => {
    const facts = [
      ['Status', badge(info.status)], ['Started', info.started ? 'yes' : 'no'], ['Stop requested', info.stop_requested ? 'yes' : 'no'],
      ['Pending approvals', info.pending_approvals.length], ['Pending steer', info.pending_steer.length],
      ['Steer', `${info.accept_steer === null ? 'default' : info.accept_steer ? 'accepted' : 'refused'}${info.steer_raises ? `, raises ${JSON.stringify(info.steer_raises)} (first)` : ''}`],
      ['Stop', info.acknowledge_stop === null ? 'default' : info.acknowledge_stop ? 'honoured' : 'ignored'],
      ['Buffered events', info.buffered_events ?? 'buffer gone'], ['Scenario', info.scenario ?? 'none'],
    ];
    fill(page.infoBox, facts.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
    const p = page.policy;
    if (!p.filled) {
      p.filled = true;
      p.steerAccept.value = info.accept_steer === false ? 'false' : 'true';
      p.steerRaise.value = info.steer_raises ?? '';
      p.stopAck.value = info.acknowledge_stop === false ? 'false' : 'true';
    }
  };

  const select = (run) => {
    if (run === selected && page) return;
    selected = run;
    seen = null;
    build();
  };

  select(ctx.run);
  return {
    select,
    async refresh() {
      const { runs } = await ctx.call('runs');
      renderList(runs);
      if (!selected || !page) return;
      const summary = runs.find((r) => r.run_id === selected);
      try {
        page.info = await ctx.call('run', { param: selected });
        renderInfo(page.info);
      } catch (e) {
        fill(page.infoBox, h('p', { class: 'problem-text' }, e.message));
      }
      const key = summary ? `${summary.status}/${summary.last_event}/${page.info?.pending_approvals?.join(',')}` : 'gone';
      if (key !== seen) {
        seen = key;
        await readStatusObject();
      } else {
        renderApprovals();
      }
    },
    destroy: stopStream,
  };
}
