// An SQL identifier (a table, column, schema or trigger name) written as SQLite and PostgreSQL both read one: in
// double quotes, a `"` inside doubled. The one way names go into SQL text, whether ours or read from a store.

/** `name` as a quoted identifier. @example quoteName('tool"calls') // '"tool""calls"' */
export const quoteName = (name: string): string => `"${name.replaceAll('"', '""')}"`;
