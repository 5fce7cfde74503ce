// Which names `hermetic web` answers as: its Host check against DNS rebinding (a page on another site whose name is
// made to point at this machine reaches the dashboard under that name, so a request naming a host the dashboard does
// not know is refused before anything is read). On loopback: localhost and loopback addresses. Bound to the network:
// also any IP address and this machine's own name. On both: the names given with --allowed-host (`.example.com` for
// it and its subdomains), or `*` for any name, the check off (decision 0087).
import { isIPv4, isIPv6 } from 'node:net';
import { hostname as osHostname } from 'node:os';
import { domainToASCII } from 'node:url';
import { isLoopbackHost } from '../../shared/loopback.js';

export interface HostCheck {
  /** Whether a request naming `name` (its Host without the port, or an absolute-form target's hostname) is answered. */
  answers(name: string): boolean;
  /** The names it answers as, as a phrase: "localhost, any IP address or this machine's name (box, box.lan)". */
  described: string;
  /** `--allowed-host '*'`: every name is answered (no check). */
  any: boolean;
}

/** One DNS label: letters, digits, `-` inside, `_` (some LAN names have it); 63 at most. */
const NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A name as the check compares it: lower case, one trailing dot dropped (`box.lan.` is `box.lan`). */
function compared(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/**
 * The --allowed-host names (`allowedHosts`), each checked once and written as the check compares it: lower case,
 * ASCII (`bücher.example` is `xn--bcher-kva.example`, what a browser sends), no trailing dot. A refusal goes to
 * `refuse` as the rest of a sentence that starts with the flag's or the option's name.
 * @example allowedHosts(['Dash.Example.', '.corp.example'], usageError) // ['dash.example', '.corp.example']
 */
export function allowedHosts(names: readonly unknown[], refuse: (rest: string) => never): string[] {
  return names.map((raw) => {
    if (typeof raw !== 'string') return refuse(`must be a host name; got ${JSON.stringify(raw) ?? String(raw)}.`);
    const given = raw.trim();
    if (given === '*') return '*';
    // IP addresses are answered anyway on the network; named here they are answered on loopback too.
    if (isIPv4(given)) return given;
    const v6 = /^\[(.+)\]$/.exec(given);
    if (v6 && isIPv6(v6[1]!)) return given.toLowerCase();
    if (/^[^:/@\s]+:\d+$/.test(given)) return refuse(`is a name without its port (every port is the same name); got ${JSON.stringify(raw)}.`);
    const dot = given.startsWith('.') ? '.' : '';
    const rest = compared(given.slice(dot.length));
    // domainToASCII reads `a/b` as `a`: only a name with no URL punctuation in it is given to it.
    const ascii = /[\s/\\@:?#[\]%*,]/.test(rest) ? '' : domainToASCII(rest);
    if (!NAME.test(ascii)) return refuse(`must be a host name (dashboard.example), .example.com for a domain and its subdomains, or * for any name; got ${JSON.stringify(raw)}.`);
    return dot + ascii;
  });
}

/** "a", "a or b", "a, b or c". */
function either(parts: string[]): string {
  return parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

/**
 * The check for a server bound to `bound`, given the --allowed-host names (checked by `allowedHosts`) and the machine's
 * name (os.hostname(); tests give another). Names compare case-insensitively, without a trailing dot; a loopback name
 * must be one exactly (`localhost.` goes to DNS, which a rebinding attacker may answer), and so must an IP address.
 * @example hostCheck('0.0.0.0', [], 'box.lan').answers('BOX') // true; .answers('attacker.example') // false
 */
export function hostCheck(bound: string, allowed: readonly string[], machine = osHostname()): HostCheck {
  const loopback = isLoopbackHost(bound);
  const any = allowed.includes('*');
  const own = compared(machine);
  const short = own.split('.')[0]!;
  // The machine's name, full and short (`box.lan`, `box`), unless it is localhost or empty, which say nothing more; and
  // the name it was bound to, when --host gave one (`--host box.example`: it is this machine's by the user's word).
  const boundName = isIPv4(bound) || isIPv6(bound.replace(/^\[(.*)\]$/, '$1')) ? '' : compared(bound);
  const machineNames = loopback ? [] : [...new Set([own, short, boundName])].filter((n) => n !== '' && !isLoopbackHost(n));
  const names = allowed.filter((a) => a !== '*');
  const answers = (name: string): boolean => {
    if (any || isLoopbackHost(name)) return true;
    if (!loopback) {
      if (isIPv4(name)) return true;
      const v6 = /^\[(.+)\]$/.exec(name);
      if (v6 && isIPv6(v6[1]!)) return true;
    }
    const n = compared(name);
    if (n === '') return false;
    if (machineNames.includes(n)) return true;
    return names.some((a) => (a.startsWith('.') ? n === a.slice(1) || n.endsWith(a) : n === a));
  };
  const shown = names.map((a) => (a.startsWith('.') ? `${a.slice(1)} and its subdomains` : a));
  const described = any
    ? 'any name'
    : loopback
      ? either(['localhost', 'a loopback address (127.0.0.1, ::1)', ...shown])
      : either(['localhost', 'any IP address', ...(machineNames.length ? [`this machine's name (${machineNames.join(', ')})`] : []), ...shown]);
  return { answers, described, any };
}
