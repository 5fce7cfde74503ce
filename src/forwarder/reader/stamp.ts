// "Did anything commit since the last tick?" without opening the store (spec forwarding §6.3 item 22: no full scan
// when nothing changed). SQLite's own file formats say it: in WAL mode the wal-index header at the start of `-shm`
// (its change counter, last valid frame and salts move on every commit and every WAL reset); in rollback-journal
// mode the database header's file change counter (bytes 24–27, bumped by every commit). A store read through a
// private copy has no live writer, so its files' inode, sizes and times are enough. Decision 0017.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { fileSignature, readsCopy } from '../../shared/sqlite.js';

function bytes(path: string, offset: number, length: number): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(length);
    const n = readSync(fd, buf, 0, length, offset);
    return buf.subarray(0, n).toString('hex');
  } finally {
    closeSync(fd);
  }
}

const inode = (path: string): string => {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}:${st.size}`;
  } catch {
    return '-';
  }
};

/** A string that changes whenever a transaction commits to the store; null when it cannot be told. */
export function changeStamp(path: string): string | null {
  if (!existsSync(path)) return null;
  if (readsCopy(path)) return `copy ${fileSignature(path)}`;
  if (existsSync(`${path}-wal`)) {
    const header = bytes(`${path}-shm`, 0, 48);
    return header === null ? null : `wal ${inode(path)} ${inode(`${path}-wal`)} ${header}`;
  }
  const counter = bytes(path, 24, 4);
  return counter === null ? null : `rollback ${inode(path)} ${counter} ${existsSync(`${path}-journal`) ? 'journal' : ''}`;
}
