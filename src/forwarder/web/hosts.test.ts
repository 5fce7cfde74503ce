// The names `hermetic web` answers as (decision 0087): on loopback, loopback names; bound to the network, also any IP
// address and the machine's name (full and short, any case, a trailing dot); the --allowed-host names on both, a
// leading dot for subdomains, `*` for any; `user@host` and near-misses refused; a name given that is no host name is
// refused with its reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowedHosts, hostCheck } from './hosts.js';

const refuse = (rest: string): never => {
  throw new Error(rest);
};
const answered = (check: ReturnType<typeof hostCheck>, names: string[]) => names.filter((n) => check.answers(n));

describe('bound to the network', () => {
  const check = hostCheck('0.0.0.0', [], 'Box.Lan.');
  it('answers IP addresses, localhost and the machine\'s name (full or short, any case, with a trailing dot)', () => {
    const names = ['localhost', 'LOCALHOST', '127.0.0.1', '10.1.2.3', '[::1]', '[fe80::1]', '[2001:DB8::1]', 'box.lan', 'BOX.LAN', 'box.lan.', 'box', 'Box', 'box.'];
    assert.deepEqual(answered(check, names), names);
    assert.equal(check.described, 'localhost, any IP address or this machine\'s name (box.lan, box)');
    assert.equal(check.any, false);
  });
  it('refuses every other name, and names that only look like its own', () => {
    const names = ['', 'attacker.example', 'box.lan.attacker.example', 'box.attacker', 'attacker-box.lan', 'lan', 'localhost.', '127.0.0.1.',
      '127.1', 'box:1@attacker.example', 'attacker.example:1@box', 'box@attacker.example', '[box]', '[::1', 'box..', ' box.lan x'];
    assert.deepEqual(answered(check, names), []);
  });
  it('bound to a name (--host box.example), that name is answered too', () => {
    const check = hostCheck('Dash.Example', [], 'box');
    assert.deepEqual(answered(check, ['dash.example', 'DASH.example.', 'box', 'evil.dash.example']), ['dash.example', 'DASH.example.', 'box']);
    assert.equal(check.described, 'localhost, any IP address or this machine\'s name (box, dash.example)');
    assert.equal(hostCheck('10.0.0.5', [], 'box').described, 'localhost, any IP address or this machine\'s name (box)');
    assert.equal(hostCheck('[fe80::1]', [], 'box').described, 'localhost, any IP address or this machine\'s name (box)');
  });
  it('a machine named localhost (or nothing) adds no name', () => {
    assert.equal(hostCheck('0.0.0.0', [], 'localhost').described, 'localhost or any IP address');
    assert.equal(hostCheck('::', [], '').described, 'localhost or any IP address');
  });
});

describe('on loopback', () => {
  it('answers loopback names only: not the machine\'s name, nor another address', () => {
    const check = hostCheck('127.0.0.1', [], 'box.lan');
    assert.deepEqual(answered(check, ['localhost', '127.0.0.2', '[::1]', 'box', 'box.lan', '10.1.2.3', 'attacker.example']), ['localhost', '127.0.0.2', '[::1]']);
    assert.equal(check.described, 'localhost or a loopback address (127.0.0.1, ::1)');
  });
});

describe('--allowed-host', () => {
  const given = allowedHosts(['Dash.Example.', '.Corp.Example', 'bücher.example', '10.0.0.5', '[FE80::1]', ' spaced.example '], refuse);
  it('each name is written as the check compares it: lower case, ASCII, no trailing dot', () => {
    assert.deepEqual(given, ['dash.example', '.corp.example', 'xn--bcher-kva.example', '10.0.0.5', '[fe80::1]', 'spaced.example']);
  });
  it('adds its names on loopback and on the network; a leading dot adds the domain and its subdomains', () => {
    const names = ['dash.example', 'DASH.example.', 'corp.example', 'a.b.corp.example', 'xn--bcher-kva.example', '10.0.0.5', '[fe80::1]'];
    const near = ['dash.example.evil', 'evil.dash.example', 'evilcorp.example', 'corp.example.evil', '10.0.0.6', 'bücher.example'];
    for (const bound of ['127.0.0.1', '0.0.0.0']) {
      const check = hostCheck(bound, given, 'box');
      assert.deepEqual(answered(check, names), names, bound);
      assert.deepEqual(answered(check, near), bound === '127.0.0.1' ? [] : ['10.0.0.6'], bound);
    }
    assert.equal(hostCheck('127.0.0.1', ['dash.example', '.corp.example'], 'box').described, 'localhost, a loopback address (127.0.0.1, ::1), dash.example or corp.example and its subdomains');
  });
  it('* answers any name, a missing Host too', () => {
    const check = hostCheck('0.0.0.0', allowedHosts(['*'], refuse), 'box');
    assert.deepEqual([check.any, check.described, check.answers('attacker.example'), check.answers('')], [true, 'any name', true, true]);
  });
  it('a name that is no host name is refused with its reason', () => {
    const why = (raw: unknown) => {
      try {
        allowedHosts([raw], refuse);
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    assert.equal(why('dash.example:8650'), 'is a name without its port (every port is the same name); got "dash.example:8650".');
    const notAName = (raw: string) => `must be a host name (dashboard.example), .example.com for a domain and its subdomains, or * for any name; got ${JSON.stringify(raw)}.`;
    for (const raw of ['', ' ', 'http://dash.example/', 'user@dash.example', 'dash.example/x', '*.example.com', 'a b', '-dash.example', 'dash..example', '.', '[dash]', 'a,b']) assert.equal(why(raw), notAName(raw), raw);
    assert.equal(why(8650), 'must be a host name; got 8650.');
  });
});
