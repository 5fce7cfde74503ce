// Node's flags for a worker thread we start (the read worker, the PostgreSQL mirror thread): the parent's, without
// the modules it preloads (tsx, test probes): the worker loads its own.
export function workerFlags(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (/^(--import|--require|-r|--loader|--experimental-loader)$/.test(a)) i++;
    else if (!/^(--import|--require|--loader|--experimental-loader)=/.test(a)) out.push(a);
  }
  return out;
}
