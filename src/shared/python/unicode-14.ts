// Unicode 14.0 as str.isprintable() reads it on CPython 3.11 (what repr() leaves unescaped), against Node's newer tables.
// Made from CPython 3.11's own answer (cpython-vectors.json `printable`, scripts/python-vectors.py) and Node 20's Unicode
// 17 properties; cpython.test.ts holds repr() to CPython's answer over every code point, so a Node with newer Unicode
// shows here as a failing test, not as a wrong display_identity hash (decision 0150).

/**
 * Class body: code points Node's Unicode gives a printable category (not C*, Z* but space) that Unicode 14.0 leaves
 * unassigned, so CPython 3.11 escapes them in repr(): 🩷 is `\U0001fa77` there.
 */
export const PRINTABLE_AFTER_UNICODE_14 =
  '\\u088f\\u0897\\u0c5c\\u0cdc\\u0cf3\\u0ece\\u1acf-\\u1add\\u1ae0-\\u1aeb\\u1b4e-\\u1b4f\\u1b7f' +
  '\\u1c89-\\u1c8a\\u20c1\\u2427-\\u2429\\u2b96\\u2ffc-\\u2fff\\u31e4-\\u31e5\\u31ef\\ua7cb-\\ua7cf\\ua7d2' +
  '\\ua7d4\\ua7da-\\ua7dc\\ua7f1\\ufbc3-\\ufbd2\\ufd90-\\ufd91\\ufdc8-\\ufdce\\u{105c0}-\\u{105f3}' +
  '\\u{10940}-\\u{10959}\\u{10d40}-\\u{10d65}\\u{10d69}-\\u{10d85}\\u{10d8e}-\\u{10d8f}\\u{10ec2}-\\u{10ec7}' +
  '\\u{10ed0}-\\u{10ed8}\\u{10efa}-\\u{10eff}\\u{1123f}-\\u{11241}\\u{11380}-\\u{11389}\\u{1138b}\\u{1138e}' +
  '\\u{11390}-\\u{113b5}\\u{113b7}-\\u{113c0}\\u{113c2}\\u{113c5}\\u{113c7}-\\u{113ca}\\u{113cc}-\\u{113d5}' +
  '\\u{113d7}-\\u{113d8}\\u{113e1}-\\u{113e2}\\u{116d0}-\\u{116e3}\\u{11b00}-\\u{11b09}\\u{11b60}-\\u{11b67}' +
  '\\u{11bc0}-\\u{11be1}\\u{11bf0}-\\u{11bf9}\\u{11db0}-\\u{11ddb}\\u{11de0}-\\u{11de9}\\u{11f00}-\\u{11f10}' +
  '\\u{11f12}-\\u{11f3a}\\u{11f3e}-\\u{11f5a}\\u{1342f}\\u{13440}-\\u{13455}\\u{13460}-\\u{143fa}' +
  '\\u{16100}-\\u{16139}\\u{16d40}-\\u{16d79}\\u{16ea0}-\\u{16eb8}\\u{16ebb}-\\u{16ed3}\\u{16ff2}-\\u{16ff6}' +
  '\\u{187f8}-\\u{187ff}\\u{18cff}\\u{18d09}-\\u{18d1e}\\u{18d80}-\\u{18df2}\\u{1b132}\\u{1b155}' +
  '\\u{1cc00}-\\u{1ccfc}\\u{1cd00}-\\u{1ceb3}\\u{1ceba}-\\u{1ced0}\\u{1cee0}-\\u{1cef0}\\u{1d2c0}-\\u{1d2d3}' +
  '\\u{1df25}-\\u{1df2a}\\u{1e030}-\\u{1e06d}\\u{1e08f}\\u{1e4d0}-\\u{1e4f9}\\u{1e5d0}-\\u{1e5fa}\\u{1e5ff}' +
  '\\u{1e6c0}-\\u{1e6de}\\u{1e6e0}-\\u{1e6f5}\\u{1e6fe}-\\u{1e6ff}\\u{1f6d8}\\u{1f6dc}\\u{1f774}-\\u{1f77f}' +
  '\\u{1f7d9}\\u{1f8b2}-\\u{1f8bb}\\u{1f8c0}-\\u{1f8c1}\\u{1f8d0}-\\u{1f8d8}\\u{1fa54}-\\u{1fa57}' +
  '\\u{1fa75}-\\u{1fa77}\\u{1fa87}-\\u{1fa8a}\\u{1fa8e}-\\u{1fa8f}\\u{1faad}-\\u{1faaf}\\u{1fabb}-\\u{1fabf}' +
  '\\u{1fac6}\\u{1fac8}\\u{1facd}-\\u{1facf}\\u{1fada}-\\u{1fadc}\\u{1fadf}\\u{1fae8}-\\u{1faea}\\u{1faef}' +
  '\\u{1faf7}-\\u{1faf8}\\u{1fbcb}-\\u{1fbef}\\u{1fbfa}\\u{2b739}-\\u{2b73f}\\u{2cea2}-\\u{2cead}' +
  '\\u{2ebf0}-\\u{2ee5d}\\u{31350}-\\u{33479}';
