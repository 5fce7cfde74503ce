// The first user messages of decision 0134's preview tests and the preview Hermes lists for each. Every expected value
// is what Hermes's own Python gave for the same input: hermes_state_common._PREVIEW_RAW_SELECT run by SQLite on the
// message, then _shape_preview and agent/skill_commands.describe_skill_invocation (the pin's proxy,
// Fezile-Tati/numbers@abd4cb1e). Shared by the pure tests beside sessions/ and the session routes' tests.

/** SKILL_SCAFFOLD_SQL_LIKE without its %: how a /skill turn Hermes expanded begins. */
export const PREFIX = '[IMPORTANT: The user has invoked the ';
/** The single-skill activation note (build_skill_invocation_message). */
export const note = (name: string): string =>
  `${PREFIX}"${name}" skill, indicating they want you to follow its instructions. The full skill content is loaded below.]`;
export const ASK = 'The user has provided the following instruction alongside the skill invocation: ';
export const BODY = 'Kick off a task in a fresh isolated git worktree.\n\n## Steps\n1. Make the worktree.\n2. Work there.';

/** [what it shows, the first user message, the preview Hermes lists]. */
export const PREVIEW_VECTORS: Array<[string, string, string]> = [
  ['plain text', 'hello', 'hello'],
  ['the text before the excerpt joint', 'hello\x1eworld and more', 'hello'],
  ['\\x1e is Python whitespace: stripped at the ends first', '\x1e\x1ehi\x1ethere', 'hi'],
  ['stripped as Python strips', '  padded\t ', 'padded'],
  ['newlines as spaces', 'line1\nline2\r\nline3', 'line1 line2  line3'],
  ['60 characters stay whole', 'a'.repeat(60), 'a'.repeat(60)],
  ['61 are cut to 60 and ...', 'a'.repeat(61), `${'a'.repeat(60)}...`],
  ['the 63-character head stripped to 60: no ...', `${'a'.repeat(60)}   ${'b'.repeat(10)}`, 'a'.repeat(60)],
  ['characters are code points', '😀'.repeat(70), `${'😀'.repeat(60)}...`],
  ['a cut after 59 non-BMP characters', `${'😀'.repeat(59)}ab`, `${'😀'.repeat(59)}a...`],
  ['a skill with its instruction', `${note('work')}\n\n${BODY}\n\n${ASK}fix the title leak`, '/work — fix the title leak'],
  ['a skill without one', `${note('work')}\n\n${BODY}`, '/work'],
  [
    'a long skill: head and tail around the joint, whitespace collapsed',
    `${note('work')}\n\n${BODY}\n${'filler line.\n'.repeat(80)}\n${ASK}fix   the\ttitle leak`,
    '/work — fix the title leak',
  ],
  [
    'an instruction that runs across the joint keeps the head side',
    `${note('work')}\n\n${BODY}\n\n${ASK}${'word '.repeat(200)}end`,
    `/work — ${'word '.repeat(10)}wo...`,
  ],
  [
    'the runtime note is not cut (its newlines are spaces by then)',
    `${note('work')}\n\n${BODY}\n\n${ASK}fix it\n\n[Runtime note: the clock is virtual]`,
    '/work — fix it [Runtime note: the clock is virtual]',
  ],
  [
    'a bundle: its instruction marker has a newline, so the label alone',
    `${PREFIX}"/clean /work" stacked skill bundle, loading 2 skills together. Treat every skill below as active guidance ` +
      'for this turn.]\n\nSkills loaded: clean, work\n\nUser instruction: tidy up\n\n[Loaded as part of the bundle]',
    '/clean /work',
  ],
  ['an empty skill name without an instruction: the plain head', `${note('')}\n\n${BODY}`, `${note('').slice(0, 60)}...`],
  ['an empty skill name with one: the instruction alone', `${note('')}\n\n${BODY}\n\n${ASK}just this`, 'just this'],
  ['no quoted name: the instruction alone', `${PREFIX}work skill. The full skill content is loaded below.]\n${BODY}\n${ASK}do it`, 'do it'],
  [
    'SQL LIKE ignores ASCII case: the wide window, then ...',
    `[important: the user has invoked the ${'x'.repeat(23)}   ${'y'.repeat(10)}`,
    `[important: the user has invoked the ${'x'.repeat(23)}...`,
  ],
  [
    'the same past 800 characters: head, joint, tail',
    `[important: the user has invoked the ${'x'.repeat(23)}   ${'y'.repeat(800)}`,
    `[important: the user has invoked the ${'x'.repeat(23)}...`,
  ],
  ['a name stripped, non-BMP in the instruction', `${note(' 修复 ')}\n\n${BODY}\n\n${ASK}标题 😀 泄漏`, '/修复 — 标题 😀 泄漏'],
  [
    'non-BMP bodies and instructions past the window',
    `${note('work')}\n\n${'😀'.repeat(500)}\n\n${ASK}${'🎉'.repeat(70)}`,
    `/work — ${'🎉'.repeat(52)}...`,
  ],
];
