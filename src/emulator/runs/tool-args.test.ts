// The args tool.started hands the progress callback (decision 0146): a dict as the agent parsed it, browser_type's text
// masked as agent/display.py masks it, anything the agent would never start a tool with shown as given.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PyDict } from '../../shared/python/index.js';
import { displayArgs } from './tool-args.js';

describe('tool.started args', () => {
  it('none given is {}; JSON text of an object is that object, keys in order; other values are shown as given', () => {
    assert.deepEqual(displayArgs('todo', undefined), new Map());
    assert.deepEqual([...(displayArgs('read_file', '{"path": "a", "limit": 5}') as PyDict)], [['path', 'a'], ['limit', 5]]);
    assert.equal(displayArgs('read_file', '[1, 2]'), '[1, 2]');
    assert.equal(displayArgs('read_file', 'not json'), 'not json');
    assert.deepEqual(displayArgs('read_file', [1, 2]), [1, 2]);
  });

  it('browser_type\'s text is force-redacted in a copy; other tools and other fields are left as they are', () => {
    const args: PyDict = new Map([['ref', 'e1'], ['text', 'key sk-proj-abcdefghijklmnop1234']]);
    assert.deepEqual([...(displayArgs('browser_type', args) as PyDict)], [['ref', 'e1'], ['text', 'key sk-pro...1234']]);
    assert.equal(args.get('text'), 'key sk-proj-abcdefghijklmnop1234', 'the call\'s own arguments are not touched');
    assert.equal(displayArgs('terminal', args), args);
    const typed: PyDict = new Map([['text', 5]]);
    assert.equal(displayArgs('browser_type', typed), typed);
  });
});
