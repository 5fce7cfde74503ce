// Which hosts are this machine only: for `hermetic serve` (an open control plane on the network lets anyone drive
// runs, decision 0025) and `hermetic web` (a loopback dashboard refuses other Host names, against DNS rebinding).
import { isIPv4, isIPv6 } from 'node:net';

/**
 * Whether `host` binds to loopback only: 127.0.0.0/8, ::1 (and ::ffff:127.x.y.z), or `localhost`. Anything else —
 * 0.0.0.0, ::, a LAN address, another name — counts as the network (a name is not resolved: refusing is the safe guess).
 * @example isLoopbackHost('127.0.0.2') // true; isLoopbackHost('0.0.0.0') // false
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (isIPv6(h)) {
    // The URL parser writes every IPv6 spelling one way: [::1], [::ffff:7f00:1].
    const canonical = new URL(`http://[${h}]/`).hostname;
    if (canonical === '[::1]') return true;
    const mapped = /^\[::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}\]$/.exec(canonical);
    return mapped !== null && parseInt(mapped[1]!, 16) >> 8 === 127;
  }
  return false;
}
