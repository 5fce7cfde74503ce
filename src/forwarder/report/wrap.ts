// Words in lines that fit a terminal: the report's summary and the lines it shows when a filter matches nothing.

const ANSI_CODE = /\x1b\[[0-9;]*m/g;

/**
 * Words in lines of at most `room` visible characters (colour codes take none), the lines after the first at most
 * `nextRoom` (room left beside an indent); a word longer than that is a line of its own.
 * @example wrapWords('a bb ccc', 4) // ['a bb', 'ccc']
 */
export function wrapWords(text: string, room: number, nextRoom = room): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (line !== '' && candidate.replace(ANSI_CODE, '').length > (lines.length === 0 ? room : nextRoom)) {
      lines.push(line);
      line = word;
    } else line = candidate;
  }
  return [...lines, line];
}
