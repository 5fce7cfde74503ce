// Decision 0134: a session list's preview as Hermes shapes it (_shape_preview, describe_skill_invocation), on the
// vectors derived from Hermes's own Python (testing/preview-vectors.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeSkillInvocation, SKILL_EXCERPT_JOINT } from './skill-invocation.js';
import { shapePreview } from './object.js';
import { ASK, note, PREFIX, PREVIEW_VECTORS } from './testing/preview-vectors.js';

/** What _PREVIEW_RAW_SELECT hands _shape_preview for a message (the store's SQL; here for the pure tests). */
function rawOf(content: string): string {
  const cp = Array.from(content.replace(/[\n\r]/g, ' '));
  if (!content.toLowerCase().startsWith(PREFIX.toLowerCase())) return cp.slice(0, 63).join('');
  return cp.length > 800 ? `${cp.slice(0, 400).join('')}${SKILL_EXCERPT_JOINT}${cp.slice(-400).join('')}` : cp.slice(0, 800).join('');
}

test('shapePreview gives what Hermes\'s _shape_preview gives for each vector', () => {
  for (const [what, content, preview] of PREVIEW_VECTORS) assert.equal(shapePreview(rawOf(content)), preview, what);
});

test('describeSkillInvocation: the label, the instruction, or nothing (describe_skill_invocation)', () => {
  assert.equal(describeSkillInvocation('hello'), null);
  assert.equal(describeSkillInvocation(`${note('work')}\nbody\n${ASK}fix it`), '/work — fix it');
  assert.equal(describeSkillInvocation(`${note('work')}\nbody\n${ASK}fix it`, ' '), '/work fix it');
  assert.equal(describeSkillInvocation(`${note('work')}\nbody`), '/work');
  assert.equal(describeSkillInvocation(`${note('')}\nbody`), null);
  // The last instruction marker is the user's (the body may quote it); the runtime note is cut when it has its newlines.
  assert.equal(describeSkillInvocation(`${note('w')}\n${ASK}quoted\n${ASK}real\n\n[Runtime note: x]`), '/w — real');
  // A bundle's instruction sits between its markers.
  const bundle = `${PREFIX}"/a /b" stacked skill bundle, loading 2.]\n\nUser instruction:  do  both \n\n[Loaded as part of the a]`;
  assert.equal(describeSkillInvocation(bundle), '/a /b — do both');
  // A scaffold that is neither a bundle nor a single skill has no instruction.
  assert.equal(describeSkillInvocation(`${PREFIX}"x" thing]\n${ASK}ignored`), '/x');
});
