// Child process for the concurrency test: polls a WAL store read-only until the writer marks it done.
// argv: PATH SESSION_ID; says "reading" on stderr after its first read, then prints one JSON line
// {reads, errors, last, monotonic} on stdout.
import Database from 'better-sqlite3';

const [path, sessionId] = process.argv.slice(2);
const db = new Database(path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const count = db.prepare('SELECT COUNT(*) FROM messages WHERE session_id = ?').pluck();
const ended = db.prepare('SELECT ended_at FROM sessions WHERE id = ?').pluck();
let reads = 0, errors = [], last = 0, monotonic = true;
// A deadline only for a writer that never ends the session; a busy machine is slow, not wrong.
const deadline = Date.now() + 120000;
for (;;) {
  try {
    const n = count.get(sessionId);
    if (n < last) monotonic = false;
    last = n;
    if (reads++ === 0) process.stderr.write('reading\n');
    // The count and the end are two reads: rows appended between them (before the end) are counted once more.
    if (ended.get(sessionId) != null) {
      const final = count.get(sessionId);
      if (final < last) monotonic = false;
      last = final;
      break;
    }
  } catch (e) {
    errors.push(String(e.message));
  }
  if (Date.now() > deadline) { errors.push('timeout'); break; }
}
db.close();
console.log(JSON.stringify({ reads, errors, last, monotonic }));
