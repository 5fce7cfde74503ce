// A /skill turn as the user typed it. Hermes expands `/work fix the title leak` into a user message that embeds the
// whole skill body; its session previews show `/work — fix the title leak` instead (agent/skill_commands.py:
// describe_skill_invocation and extract_user_instruction_from_skill_message; decision 0134). Pure.
import { pyStrip } from '../../shared/python/index.js';
import { pySplit } from '../../shared/python/strings.js';

/** _SKILL_INVOCATION_PREFIX: how every expanded skill turn begins (SKILL_SCAFFOLD_SQL_LIKE is it plus `%`). */
export const SKILL_INVOCATION_PREFIX = '[IMPORTANT: The user has invoked the ';
/** SKILL_EXCERPT_JOINT: where a preview query joined the head and the tail of a long expanded turn. */
export const SKILL_EXCERPT_JOINT = '\x1e';

const SINGLE_SKILL_MARKER = 'The full skill content is loaded below.]';
const SINGLE_SKILL_INSTRUCTION = 'The user has provided the following instruction alongside the skill invocation: ';
const RUNTIME_NOTE = '\n\n[Runtime note:';
const BUNDLE_MARKER = ' skill bundle,';
const BUNDLE_USER_INSTRUCTION = '\nUser instruction: ';
const BUNDLE_FIRST_SKILL_BLOCK = '\n\n[Loaded as part of the ';
/** _SKILL_NAME_RE: the first quoted span after the prefix (`work`, or a bundle's typed `/clean /work`). */
const SKILL_NAME = /^\[IMPORTANT: The user has invoked the "([^"]*)"/;

/** What `text[:i]` keeps after `marker`'s first (or last) occurrence, cut at `end`, stripped; null when empty. */
function between(text: string, at: number, marker: string, end: string): string | null {
  if (at < 0) return null;
  let rest = text.slice(at + marker.length);
  const cut = rest.indexOf(end);
  if (cut >= 0) rest = rest.slice(0, cut);
  return pyStrip(rest) || null;
}

/**
 * extract_user_instruction_from_skill_message for an expanded turn: the bundle's instruction (before its skills), a
 * single skill's (after its body: the last marker), or null when the turn carries none.
 */
function userInstruction(content: string): string | null {
  if (content.includes(BUNDLE_MARKER)) {
    return between(content, content.indexOf(BUNDLE_USER_INSTRUCTION), BUNDLE_USER_INSTRUCTION, BUNDLE_FIRST_SKILL_BLOCK);
  }
  if (content.includes(SINGLE_SKILL_MARKER)) {
    return between(content, content.lastIndexOf(SINGLE_SKILL_INSTRUCTION), SINGLE_SKILL_INSTRUCTION, RUNTIME_NOTE);
  }
  return null;
}

/**
 * describe_skill_invocation: `/work — fix the title leak`, `/work` for a bare invocation, the instruction alone when
 * the note names no skill, or null when `content` is no expanded skill turn (summarize it as an ordinary message).
 * @example describeSkillInvocation('[IMPORTANT: The user has invoked the "work" skill, … loaded below.]\n…') // '/work'
 */
export function describeSkillInvocation(content: string, separator = ' — '): string | null {
  if (!content.startsWith(SKILL_INVOCATION_PREFIX)) return null;
  const name = pyStrip(SKILL_NAME.exec(content)?.[1] ?? '');
  const label = name.startsWith('/') ? name : `/${name}`;
  const found = userInstruction(content);
  if (found) {
    // An excerpt's joint inside the instruction: only the side the marker was found on.
    const instruction = pySplit(found.split(SKILL_EXCERPT_JOINT)[0]!).join(' ');
    if (instruction) return name ? `${label}${separator}${instruction}` : instruction;
  }
  return name ? label : null;
}
