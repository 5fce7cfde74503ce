// Numbers and times as the page shows them (the raw value stays in each figure's data-value).
const tokens = new Intl.NumberFormat('en-US');

/** `$1,234`, `$12.34`, `$0.0042`, `$0.00`; `–` for nothing. */
export function cost(v) {
  if (v === null || v === undefined) return '–';
  const a = Math.abs(v);
  if (a >= 1000) return `$${Math.round(v).toLocaleString('en-US')}`;
  if (a >= 0.01 || a === 0) return `$${v.toFixed(2)}`;
  return `$${v.toPrecision(2)}`;
}

export function count(v) {
  return v === null || v === undefined ? '–' : tokens.format(v);
}

/** 1.2k, 3.4M: for chart axes. */
export function short(v) {
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(1)}B`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (a >= 1e3) return `${(v / 1e3).toFixed(1)}k`;
  return String(v);
}

/** A size in bytes as a reader weighs it: `812 B`, `34 KB`, `1.0 MB`, `20 MB` (powers of 1,000). */
export function size(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${Math.round(bytes / 1e3)} KB`;
  return bytes < 1e7 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1e6)} MB`;
}

/** A session's title as a list or heading shows it: with an ellipsis when the server cut it (decision 0094), else its id. */
export function sessionTitle(s) {
  if (!s.title) return s.session_id;
  return s.cut?.title ? `${s.title}…` : s.title;
}

export function percent(v) {
  return v === null || v === undefined ? '–' : `${(v * 100).toFixed(1)}%`;
}

let zone = 'UTC';
export function setZone(name) { zone = name; }

/**
 * Epoch seconds as a date and time in the ledger's zone, written as the period line and `hermetic report` write them:
 * `2026-11-28 04:34`.
 */
export function time(s) {
  if (s === null || s === undefined) return '–';
  // A number no date can hold (a platform's microseconds where Hermes keeps seconds, in a field the forwarder keeps as
  // given) is shown as the number it is: formatting it would throw, and fail the whole page.
  if (!Number.isFinite(new Date(s * 1000).getTime())) return String(s);
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(s * 1000));
  const part = Object.fromEntries(parts.map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}`;
}

/** `4.3 s`, `42 s`, `3 min 5 s`: a time in seconds as the tools, delegations and report views show it; `–` for nothing. */
export function seconds(s) {
  if (s === null || s === undefined) return '–';
  if (s < 9.95) return `${s.toFixed(1)} s`;
  // Rounded once, to whole seconds, before the minutes are split off: 119.6 is 2 min 0 s, not 1 min 60 s. From an
  // hour on, hours and minutes (a year of terminal calls is "4629 h 38 min", not "277778 min 40 s").
  const whole = Math.round(s);
  if (whole >= 3600) {
    const minutes = Math.round(s / 60);
    return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  }
  return whole >= 60 ? `${Math.floor(whole / 60)} min ${whole % 60} s` : `${whole} s`;
}

/** `n` and the noun, plural when n is not 1 ("1 attempt", "3 attempts"). */
export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}
