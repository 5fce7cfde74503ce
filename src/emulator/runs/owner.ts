// Owner identity of an emulated gateway process (spec runs-api §12.6): each durable row records owner_pid and
// owner_started; a non-terminal row whose owner is gone reads as `interrupted`.
//
// Hermes compares owner_started with the PID's start time. One Node process can host several emulated gateways
// and restart them in place, so owner_started here is a per-instance token: same PID means "alive iff that token
// belongs to a gateway still running in this process"; another PID means "alive iff that process exists".

const liveTokens = new Set<number>();
let lastToken = 0;

export interface OwnerIdentity {
  readonly pid: number;
  readonly started: number;
}

/** Registers a new gateway instance in this process. */
export function claimOwner(): OwnerIdentity {
  lastToken = Math.max(lastToken + 1, Date.now());
  liveTokens.add(lastToken);
  return { pid: process.pid, started: lastToken };
}

/** The instance stops (close or emulated crash): its rows become orphaned. */
export function releaseOwner(owner: OwnerIdentity): void {
  liveTokens.delete(owner.started);
}

export function ownerAlive(pid: number, started: number): boolean {
  if (!(pid > 0)) return false;
  if (pid === process.pid) return liveTokens.has(started);
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
