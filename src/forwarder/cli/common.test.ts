// The error kinds and event names of the forwarder's JSON lines (decision 0052): every code a pass, a tick or a
// sink can report has its kind, a store's state reads as one kind,
// and docs/reference/errors.md lists exactly these kinds (with their codes) and events.
// Also: backfill's --since/--until read strictly (an impossible date is refused, never rolled over), and a missing
// store said as HERMETIC_READER_PATH, and no store at all said with the folders searched.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../shared/errors.js';
import { emptyResult } from '../pipeline/result.js';
import type { StoreRef } from '../reader/discover.js';
import { Zone } from '../ledger/zone.js';
import { delegationsClause, ERROR_KINDS, errorKind, EVENTS, missingAsPath, noStoreFound, parseTime, policyDropEvents, shipJson, storeErrorKind, storeMissing, type ErrorKind } from './common.js';

const KINDS: readonly ErrorKind[] = ['missing', 'open_failed', 'sqlite_busy', 'sqlite_unavailable', 'schema', 'backend', 'dataset', 'sink', 'policy', 'quarantine', 'unknown'];

describe('error_kind', () => {
  it('every code of the reader, the dataset, the sinks and the policy list has a kind; no other code is in the table', () => {
    const forwarder = Object.keys(ERROR_CODES).filter((c) => /^HERMETIC_(READER|DATASET|SINK)_/.test(c) || c === 'HERMETIC_POLICY_LIST');
    assert.deepEqual(Object.keys(ERROR_KINDS).sort(), forwarder.sort());
    for (const kind of Object.values(ERROR_KINDS)) assert.ok(KINDS.includes(kind), kind);
  });

  it('maps Hermetic\'s codes onto the reference\'s kinds, and its own states onto its own', () => {
    const kinds = Object.fromEntries(['HERMETIC_READER_PATH', 'HERMETIC_READER_OPEN', 'HERMETIC_READER_BUSY', 'HERMETIC_READER_PG_SCHEMA', 'HERMETIC_READER_PG_CONFIG',
      'HERMETIC_READER_PG_CONNECT', 'HERMETIC_READER_PG_AUTH', 'HERMETIC_DATASET_OPEN', 'HERMETIC_DATASET_VERSION', 'HERMETIC_DATASET_WRITE', 'HERMETIC_POLICY_LIST',
      'HERMETIC_SINK_UNAVAILABLE', 'HERMETIC_SINK_OTLP_REJECTED', 'HERMETIC_INTERNAL', 'HERMETIC_SOMETHING_NEW'].map((code) => [code, errorKind({ code, message: 'x.' })]));
    assert.deepEqual(kinds, {
      HERMETIC_READER_PATH: 'missing', HERMETIC_READER_OPEN: 'open_failed', HERMETIC_READER_BUSY: 'sqlite_busy', HERMETIC_READER_PG_SCHEMA: 'schema',
      HERMETIC_READER_PG_CONFIG: 'backend', HERMETIC_READER_PG_CONNECT: 'backend', HERMETIC_READER_PG_AUTH: 'backend', HERMETIC_DATASET_OPEN: 'dataset',
      HERMETIC_DATASET_VERSION: 'dataset', HERMETIC_DATASET_WRITE: 'dataset', HERMETIC_POLICY_LIST: 'policy', HERMETIC_SINK_UNAVAILABLE: 'sink',
      HERMETIC_SINK_OTLP_REJECTED: 'sink', HERMETIC_INTERNAL: 'unknown', HERMETIC_SOMETHING_NEW: 'unknown',
    });
  });


  it('a store\'s state: its error\'s kind (missing when it is not there), else quarantine while sessions failed or wait, else null', () => {
    const r = (over: Partial<ReturnType<typeof emptyResult>>) => ({ ...emptyResult({ path: '/h/state.db', profile: 'default', hermesHome: '/h', backend: 'sqlite', warning: null, exists: true }), ...over });
    const open = { code: 'HERMETIC_READER_OPEN', message: '/h/state.db does not exist' };
    assert.equal(storeErrorKind(r({ error: open }), true), 'missing');
    assert.equal(storeErrorKind(r({ error: open }), false), 'open_failed');
    assert.equal(storeErrorKind(r({ error: { code: 'HERMETIC_READER_BUSY', message: 'x' }, sessionsWaiting: 2 }), false), 'sqlite_busy');
    assert.equal(storeErrorKind(r({ sessionsQuarantined: 1 }), false), 'quarantine');
    assert.equal(storeErrorKind(r({ sessionsWaiting: 1, sessionsWritten: 4 }), false), 'quarantine');
    assert.equal(storeErrorKind(r({ sessionsWritten: 4 }), false), null);
  });

  it('a store is missing when it has no file and nothing else is wrong (a PostgreSQL profile without a connection is not)', () => {
    const ref = (over: Partial<StoreRef>): StoreRef => ({ path: '/h/state.db', profile: 'default', hermesHome: '/h', backend: 'sqlite', warning: null, exists: true, ...over });
    assert.equal(storeMissing(ref({ exists: false })), true);
    assert.equal(storeMissing(ref({})), false);
    assert.equal(storeMissing(ref({ backend: 'postgres', exists: false, problem: { code: 'HERMETIC_READER_PG_CONFIG', message: 'no URL' } })), false);
  });
});

describe('event lines', () => {
  it('a usage-policy drop is one line per session, event first, with its store, scope and reason', () => {
    const r = { store: '/h/state.db', profile: 'work', policyDrops: [{ sessionId: 's1', scope: '/p/secret', reason: '/p/.hypignore says ignore' }, { sessionId: 's2', scope: null, reason: 'no scope' }] };
    const lines = policyDropEvents(r, '2026-01-01T00:00:00.000Z');
    assert.deepEqual(lines, [
      { event: 'plugin.hermes.usage_policy_drop', at: '2026-01-01T00:00:00.000Z', store: '/h/state.db', profile: 'work', session_id: 's1', scope: '/p/secret', reason: '/p/.hypignore says ignore', removed_from_dataset: false },
      { event: 'plugin.hermes.usage_policy_drop', at: '2026-01-01T00:00:00.000Z', store: '/h/state.db', profile: 'work', session_id: 's2', scope: null, reason: 'no scope', removed_from_dataset: false },
    ]);
    assert.equal(Object.keys(lines[0]!)[0], 'event');
  });

  it('a sink\'s shipment keeps its keys and adds the kind of its error', () => {
    const base = { sink: 'id', display: 'sqlite:///x.db', batches: 2, skipped: 0, rows: 10, retryAt: null };
    assert.deepEqual(shipJson({ ...base, state: 'caught-up', error: null }), { sink: 'sqlite:///x.db', state: 'caught-up', batches: 2, skipped: 0, rows: 10, error: null, retry_at: null, error_kind: null });
    const error = { code: 'HERMETIC_SINK_UNAVAILABLE', message: 'refused', retriable: true };
    assert.deepEqual(shipJson({ ...base, state: 'retrying', error, retryAt: 1_800_000_000 }), { sink: 'sqlite:///x.db', state: 'retrying', batches: 2, skipped: 0, rows: 10, error, retry_at: 1_800_000_000, error_kind: 'sink' });
  });
});

describe('docs/reference/errors.md', () => {
  const doc = readFileSync(new URL('../../../docs/reference/errors.md', import.meta.url), 'utf8');

  it('lists every error_kind once, with exactly the codes ERROR_KINDS gives it', () => {
    // | `kind` | its codes | when |
    const rows = new Map([...doc.matchAll(/^\| `([a-z_]+)` \| ([^|]*) \| .+ \|$/gm)].map((m) => [m[1]!, m[2]!]));
    for (const kind of KINDS) {
      assert.ok(rows.has(kind), `a row for ${kind}`);
      const listed = [...rows.get(kind)!.matchAll(/`(HERMETIC_[A-Z_]+)`/g)].map((m) => m[1]!).sort();
      assert.deepEqual(listed, Object.entries(ERROR_KINDS).filter(([, k]) => k === kind).map(([c]) => c).sort(), kind);
    }
  });

  it('names every event', () => {
    for (const name of Object.values(EVENTS)) assert.match(doc, new RegExp(`^\\| \`${name.replace(/\./g, '\\.')}\` \\|`, 'm'), name);
  });
});

describe('delegations in the summaries', () => {
  it('what a pass wrote and what Hermes pruned (kept), said only when there is some', () => {
    assert.equal(delegationsClause({ delegationsWritten: 0, delegationsRemoved: 0 }), '');
    assert.equal(delegationsClause({ delegationsWritten: 1, delegationsRemoved: 0 }), '1 delegation written');
    assert.equal(delegationsClause({ delegationsWritten: 3, delegationsRemoved: 2 }), '3 delegations written, 2 pruned by Hermes (kept)');
  });
});

describe('parseTime (backfill\'s --since and --until)', () => {
  const NOW = Date.UTC(2026, 6, 15) / 1000;
  const refused = (text: string, message: string) => assert.throws(() => parseTime('since', text, NOW), (e: { code: string; message: string }) => {
    assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', message]);
    return true;
  });

  it('refuses a date or time that does not exist, naming the flag, the value and why, instead of rolling it over', () => {
    refused('2026-02-30', '--since "2026-02-30" is not a real date: days of February 2026 run from 01 to 28.');
    refused('2026-02-29', '--since "2026-02-29" is not a real date: days of February 2026 run from 01 to 28.');
    refused('2026-04-31', '--since "2026-04-31" is not a real date: days of April 2026 run from 01 to 30.');
    refused('2026-13-45', '--since "2026-13-45" is not a real date: months run from 01 to 12.');
    refused('2026-02-30T25:00', '--since "2026-02-30T25:00" is not a real date: days of February 2026 run from 01 to 28.');
    refused('2026-03-01T24:00', '--since "2026-03-01T24:00" is not a real time: hours run from 00 to 23 (the end of a day is the next day\'s 00:00).');
    refused('2026-03-01T10:60Z', '--since "2026-03-01T10:60Z" is not a real time: minutes run from 00 to 59.');
    refused('2026-03-01T10:00:60', '--since "2026-03-01T10:00:60" is not a real time: seconds run from 00 to 59.');
    refused('999999999d', '--since 999999999d reaches back more than 100 years; leave --since out for everything.');
    // backfill has no --period: a date before 1970 is said as a look back too long is.
    refused('1969-12-31', '--since 1969-12-31 is before 1970, when no usage can have been recorded; leave --since out for everything.');
    refused('soon', '--since must be a duration such as 7d, 12h or 30m, or an ISO date such as 2026-11-01; got "soon".');
  });

  it('reads a date as report does: its midnight in the ledger\'s zone, --until the whole day; a time with its offset; a duration back from now', () => {
    const utc = new Zone('UTC');
    const berlin = new Zone('Europe/Berlin');
    assert.equal(parseTime('since', '2028-02-29', NOW, utc), Date.UTC(2028, 1, 29) / 1000);
    assert.equal(parseTime('since', '2028-02-29', NOW, berlin), Date.UTC(2028, 1, 28, 23) / 1000);
    assert.equal(parseTime('until', '2028-02-29', NOW, berlin, true), Date.UTC(2028, 1, 29, 23) / 1000, 'the whole day');
    assert.equal(parseTime('since', '2028-02-29T23:30:00+01:00', NOW, berlin), Date.UTC(2028, 1, 29, 22, 30) / 1000);
    assert.equal(parseTime('since', '2028-02-29T10:00', NOW, berlin), Date.UTC(2028, 1, 29, 9) / 1000);
    assert.equal(parseTime('since', '7d', NOW), NOW - 7 * 86400);
  });
});

describe('a missing store in the commands\' words', () => {
  it('is HERMETIC_READER_PATH (error_kind missing), the code backfill refuses a --state-db that names nothing with', () => {
    const r = { store: '/h/state.db', error: { code: 'HERMETIC_READER_OPEN', message: '/h/state.db does not exist' } };
    assert.deepEqual(missingAsPath(r, true), { store: '/h/state.db', error: { code: 'HERMETIC_READER_PATH', message: '/h/state.db does not exist' } });
    assert.equal(errorKind(missingAsPath(r, true).error!), 'missing');
    // A store that is there keeps its error; one that read well has none to change.
    assert.equal(missingAsPath(r, false), r);
    assert.deepEqual(missingAsPath({ error: null }, true), { error: null });
  });
});

describe('no store found, in the commands\' words', () => {
  it('names the folders searched as paths, says when HERMES_HOME is not set, and how to make a store to try', () => {
    const e = noStoreFound({}, '/home/u');
    assert.equal(e.code, 'HERMETIC_READER_OPEN');
    assert.equal(e.message, 'No Hermes store was found (looked for /home/u/.hermes/state.db and the profiles/<name>/state.db beside it; HERMES_HOME is not set); give --state-db PATH, or make one to try with "hermetic statedb generate --out state.db".');
    // An empty HERMES_HOME is not set; one that is set comes first, and one that is ~/.hermes is searched once.
    assert.equal(noStoreFound({ HERMES_HOME: '' }, '/home/u').message, e.message);
    assert.match(noStoreFound({ HERMES_HOME: '/srv/hermes' }, '/home/u').message, /\(looked for \/srv\/hermes\/state\.db, \/home\/u\/\.hermes\/state\.db and the profiles\/<name>\/state\.db beside them\); give/);
    assert.match(noStoreFound({ HERMES_HOME: '/home/u/.hermes/' }, '/home/u').message, /\(looked for \/home\/u\/\.hermes\/state\.db and the profiles\/<name>\/state\.db beside it\); give/);
  });

  it('a HERMES_HOME that names a file (the store itself) is said as one, with the folder it should name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermetic-hermes-home-file-'));
    try {
      const store = join(dir, 'state.db');
      writeFileSync(store, '');
      assert.equal(noStoreFound({ HERMES_HOME: store }, '/home/u').message, `No Hermes store was found (looked for ${store}/state.db, /home/u/.hermes/state.db and the profiles/<name>/state.db beside them; HERMES_HOME names a file, not Hermes's folder: set it to ${dir}); give --state-db PATH, or make one to try with "hermetic statedb generate --out state.db".`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
