// Unicode 14.0 tables, the version CPython 3.11 ships (Hermes's floor and its installer's Python).
// Generated once from CPython 3.11's `re` and `str` predicates and Node 20's Unicode 17 properties;
// plain data, so the redactor's behaviour no longer moves with the Node runtime's ICU version.

/** Class body: every code point CPython 3.11's `\d` matches (str.isdecimal(), Unicode 14 Nd). */
export const PY311_DIGITS =
  '\\u0030-\\u0039\\u0660-\\u0669\\u06f0-\\u06f9\\u07c0-\\u07c9\\u0966-\\u096f\\u09e6-\\u09ef\\u0a66-\\u0a6f' +
  '\\u0ae6-\\u0aef\\u0b66-\\u0b6f\\u0be6-\\u0bef\\u0c66-\\u0c6f\\u0ce6-\\u0cef\\u0d66-\\u0d6f\\u0de6-\\u0def' +
  '\\u0e50-\\u0e59\\u0ed0-\\u0ed9\\u0f20-\\u0f29\\u1040-\\u1049\\u1090-\\u1099\\u17e0-\\u17e9\\u1810-\\u1819' +
  '\\u1946-\\u194f\\u19d0-\\u19d9\\u1a80-\\u1a89\\u1a90-\\u1a99\\u1b50-\\u1b59\\u1bb0-\\u1bb9\\u1c40-\\u1c49' +
  '\\u1c50-\\u1c59\\ua620-\\ua629\\ua8d0-\\ua8d9\\ua900-\\ua909\\ua9d0-\\ua9d9\\ua9f0-\\ua9f9\\uaa50-\\uaa59' +
  '\\uabf0-\\uabf9\\uff10-\\uff19\\u{104a0}-\\u{104a9}\\u{10d30}-\\u{10d39}\\u{11066}-\\u{1106f}\\u{110f0}-\\u{110f9}' +
  '\\u{11136}-\\u{1113f}\\u{111d0}-\\u{111d9}\\u{112f0}-\\u{112f9}\\u{11450}-\\u{11459}\\u{114d0}-\\u{114d9}' +
  '\\u{11650}-\\u{11659}\\u{116c0}-\\u{116c9}\\u{11730}-\\u{11739}\\u{118e0}-\\u{118e9}\\u{11950}-\\u{11959}' +
  '\\u{11c50}-\\u{11c59}\\u{11d50}-\\u{11d59}\\u{11da0}-\\u{11da9}\\u{16a60}-\\u{16a69}\\u{16ac0}-\\u{16ac9}' +
  '\\u{16b50}-\\u{16b59}\\u{1d7ce}-\\u{1d7ff}\\u{1e140}-\\u{1e149}\\u{1e2f0}-\\u{1e2f9}\\u{1e950}-\\u{1e959}' +
  '\\u{1fbf0}-\\u{1fbf9}';

/**
 * Class body: code points that Node's `\p{L}`, `\p{N}`, `\p{Uppercase}` or `\p{Lowercase}` accept but that
 * are unassigned in Unicode 14.0, so CPython 3.11 treats them as neither letters nor digits.
 */
export const AFTER_UNICODE_14 =
  '\\u088f\\u0c5c\\u0cdc\\u1c89-\\u1c8a\\ua7cb-\\ua7cf\\ua7d2\\ua7d4\\ua7da-\\ua7dc\\ua7f1\\u{105c0}-\\u{105f3}' +
  '\\u{10940}-\\u{10959}\\u{10d40}-\\u{10d65}\\u{10d6f}-\\u{10d85}\\u{10ec2}-\\u{10ec7}\\u{1123f}-\\u{11240}' +
  '\\u{11380}-\\u{11389}\\u{1138b}\\u{1138e}\\u{11390}-\\u{113b5}\\u{113b7}\\u{113d1}\\u{113d3}\\u{116d0}-\\u{116e3}' +
  '\\u{11bc0}-\\u{11be0}\\u{11bf0}-\\u{11bf9}\\u{11db0}-\\u{11ddb}\\u{11de0}-\\u{11de9}\\u{11f02}\\u{11f04}-\\u{11f10}' +
  '\\u{11f12}-\\u{11f33}\\u{11f50}-\\u{11f59}\\u{1342f}\\u{13441}-\\u{13446}\\u{13460}-\\u{143fa}\\u{16100}-\\u{1611d}' +
  '\\u{16130}-\\u{16139}\\u{16d40}-\\u{16d6c}\\u{16d70}-\\u{16d79}\\u{16ea0}-\\u{16eb8}\\u{16ebb}-\\u{16ed3}' +
  '\\u{16ff2}-\\u{16ff6}\\u{187f8}-\\u{187ff}\\u{18cff}\\u{18d09}-\\u{18d1e}\\u{18d80}-\\u{18df2}\\u{1b132}' +
  '\\u{1b155}\\u{1ccf0}-\\u{1ccf9}\\u{1d2c0}-\\u{1d2d3}\\u{1df25}-\\u{1df2a}\\u{1e030}-\\u{1e06d}\\u{1e4d0}-\\u{1e4eb}' +
  '\\u{1e4f0}-\\u{1e4f9}\\u{1e5d0}-\\u{1e5ed}\\u{1e5f0}-\\u{1e5fa}\\u{1e6c0}-\\u{1e6de}\\u{1e6e0}-\\u{1e6e2}' +
  '\\u{1e6e4}-\\u{1e6e5}\\u{1e6e7}-\\u{1e6ed}\\u{1e6f0}-\\u{1e6f4}\\u{1e6fe}-\\u{1e6ff}\\u{2b739}-\\u{2b73f}' +
  '\\u{2cea2}-\\u{2cead}\\u{2ebf0}-\\u{2ee5d}\\u{31350}-\\u{33479}';
