// A size in bytes as a person reads it, for messages and summaries.

/** `1.5 MB`, `12.0 kB`, `512 B` (decimal units, as `ls -h --si` and file managers show them). */
export const byteSize = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} kB` : `${bytes} B`);
