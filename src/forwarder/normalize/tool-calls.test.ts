// Tool calls as Hermes stores them (spec state-db §3, forwarding §6.1 item 3): OpenAI-nested, flattened, call_id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeToolCalls } from './tool-calls.js';

test('an OpenAI-nested call gives its id, function name and parsed arguments', () => {
  const stored = '[{"id": "call_abc", "type": "function", "function": {"name": "terminal", "arguments": "{\\"command\\": \\"ls\\"}"}}]';
  assert.deepEqual(decodeToolCalls(stored), {
    calls: [{ id: 'call_abc', name: 'terminal', args: { command: 'ls' }, flattened: false }],
    json: [{ id: 'call_abc', type: 'function', function: { name: 'terminal', arguments: '{"command": "ls"}' } }],
    problem: null,
  });
});

test('a Responses call without id is identified by call_id (an empty id counts as none)', () => {
  const stored = JSON.stringify([
    { call_id: 'fc_1', response_item_id: 'fc_item', type: 'function', function: { name: 'read_file', arguments: '{"path": "a.py"}' } },
    { id: '', call_id: 'fc_2', type: 'function', function: { name: 'web_search', arguments: '{}' } },
    { id: 'call_3', call_id: 'fc_3', type: 'function', function: { name: 'x', arguments: '{}' } },
  ]);
  assert.deepEqual(decodeToolCalls(stored).calls, [
    { id: 'fc_1', name: 'read_file', args: { path: 'a.py' }, flattened: false },
    { id: 'fc_2', name: 'web_search', args: {}, flattened: false },
    { id: 'call_3', name: 'x', args: {}, flattened: false },
  ]);
});

test('the flattened legacy form {name, arguments} has no id and is marked flattened', () => {
  assert.deepEqual(decodeToolCalls('[{"name": "terminal", "arguments": "{\\"command\\": \\"pwd\\"}"}]').calls, [
    { id: null, name: 'terminal', args: { command: 'pwd' }, flattened: true },
  ]);
  assert.deepEqual(decodeToolCalls('[{"name": "terminal", "input": {"command": "pwd"}}]').calls, [
    { id: null, name: 'terminal', args: { command: 'pwd' }, flattened: true },
  ]);
});

test('arguments that are not JSON stay the raw string; absent arguments are null; object arguments pass through', () => {
  const stored = JSON.stringify([
    { id: 'a', type: 'function', function: { name: 't', arguments: 'ls -la' } },
    { id: 'b', type: 'function', function: { name: 't' } },
    { id: 'c', type: 'function', function: { name: 't', arguments: { k: 1 } } },
    { id: 'd', type: 'function', function: { arguments: '{}' } },
  ]);
  assert.deepEqual(decodeToolCalls(stored).calls, [
    { id: 'a', name: 't', args: 'ls -la', flattened: false },
    { id: 'b', name: 't', args: null, flattened: false },
    { id: 'c', name: 't', args: { k: 1 }, flattened: false },
    { id: 'd', name: null, args: {}, flattened: false },
  ]);
});

test('a single call object (not an array) is one call', () => {
  assert.deepEqual(decodeToolCalls('{"id": "x", "type": "function", "function": {"name": "n", "arguments": "{}"}}'), {
    calls: [{ id: 'x', name: 'n', args: {}, flattened: false }],
    json: { id: 'x', type: 'function', function: { name: 'n', arguments: '{}' } },
    problem: null,
  });
});

test('invalid tool_calls JSON yields no calls and a problem to report', () => {
  assert.deepEqual(decodeToolCalls('[{"id": "call_1", "function": '), { calls: null, json: null, problem: 'tool_calls is not valid JSON; its calls are left out' });
});

test('NULL, empty and JSON null mean no calls and no problem', () => {
  for (const v of [null, undefined, '', 'null']) assert.deepEqual(decodeToolCalls(v), { calls: null, json: null, problem: null });
});

test('an id or a name stored as a number is kept as text, and said; one that is an object is left out, and said', () => {
  const d = decodeToolCalls('[{"id": 5, "function": {"name": 7, "arguments": 5}}, {"id": "ok", "function": {"name": {"x": 1}, "arguments": "{}"}}]');
  assert.deepEqual(d.calls, [{ id: '5', name: '7', args: 5, flattened: false }, { id: 'ok', name: null, args: {}, flattened: false }]);
  assert.equal(d.problem, 'tool_calls element 0: id 5 is a number, kept as text, function.name 7 is a number, kept as text; element 1: function.name {"x":1} is not text; left out');
});
