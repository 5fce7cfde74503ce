// The emulator's Prometheus metrics (GET /__admin/metrics): one prom-client registry per emulator (never the global
// default), every series labelled with its namespace, every value read from the namespaces at scrape time — so a
// request costs a tally increment, and a namespace that is reset or forgotten takes its series with it (decision 0022).
import { Counter, Gauge, Registry } from 'prom-client';
import type { Namespaces } from '../namespaces/index.js';

export interface MetricsText {
  readonly contentType: string;
  readonly text: string;
}

export class EmulatorMetrics {
  readonly registry = new Registry();

  constructor(namespaces: Namespaces) {
    const registers = [this.registry];
    const requests = new Counter({
      name: 'hermetic_requests_total',
      help: 'Requests answered, by namespace, operation (submit, get, events, approval, steer, stop, health, capabilities, unsupported, admin, other) and HTTP status.',
      labelNames: ['namespace', 'operation', 'status'] as const,
      registers,
      collect() {
        requests.reset();
        for (const ns of namespaces.list()) {
          for (const [operation, status, n] of ns.traffic.counts()) requests.inc({ namespace: ns.name, operation, status: String(status) }, n);
        }
      },
    });
    const runs = new Gauge({
      name: 'hermetic_runs',
      help: "Runs in the gateway's memory, by namespace and status.",
      labelNames: ['namespace', 'status'] as const,
      registers,
      collect() {
        runs.reset();
        for (const ns of namespaces.list()) {
          const byStatus = new Map<string, number>();
          for (const dict of ns.registry.statuses.values()) {
            const status = dict.get('status');
            if (typeof status === 'string') byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
          }
          for (const [status, n] of byStatus) runs.set({ namespace: ns.name, status }, n);
        }
      },
    });
    const faults = new Counter({
      name: 'hermetic_faults_fired_total',
      help: 'Requests fault rules affected, by namespace (rules since deleted included).',
      labelNames: ['namespace'] as const,
      registers,
      collect() {
        faults.reset();
        for (const ns of namespaces.list()) {
          const part = faultsOf(ns);
          if (part) faults.inc({ namespace: ns.name }, part.firedTotal());
        }
      },
    });
    const rules = new Counter({
      name: 'hermetic_fault_rule_fired_total',
      help: 'Requests each fault rule in place affected, by namespace and rule id.',
      labelNames: ['namespace', 'fault_id'] as const,
      registers,
      collect() {
        rules.reset();
        for (const ns of namespaces.list()) {
          for (const rule of faultsOf(ns)?.list() ?? []) rules.inc({ namespace: ns.name, fault_id: rule.id }, rule.fired);
        }
      },
    });
    const perNamespace = (name: string, help: string, value: (ns: ReturnType<Namespaces['list']>[number]) => number) => {
      const gauge: Gauge<'namespace'> = new Gauge({
        name,
        help,
        labelNames: ['namespace'] as const,
        registers,
        collect() {
          gauge.reset();
          for (const ns of namespaces.list()) gauge.set({ namespace: ns.name }, value(ns));
        },
      });
    };
    perNamespace('hermetic_journal_entries', 'Entries held in the request journal.', (ns) => ns.traffic.journal.size);
    perNamespace('hermetic_journal_capacity', 'The request journal\'s cap (0: disabled).', (ns) => ns.traffic.journal.capacity);
    perNamespace('hermetic_journal_evicted', 'Journal entries pushed out by newer ones since the journal was last cleared.', (ns) => ns.traffic.journal.evicted);
    const count = new Gauge({
      name: 'hermetic_namespaces',
      help: 'Namespaces in use (the default included).',
      registers,
      collect() {
        count.set(namespaces.size);
      },
    });
  }

  async scrape(): Promise<MetricsText> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

/** What metrics read of a namespace's fault rules (faults/index.ts), if the namespace has them. */
interface FaultCounts {
  firedTotal(): number;
  list(): ReadonlyArray<{ readonly id: string; readonly fired: number }>;
}

function faultsOf(ns: object): FaultCounts | null {
  const faults = (ns as { faults?: Partial<FaultCounts> }).faults;
  return faults && typeof faults.firedTotal === 'function' && typeof faults.list === 'function' ? (faults as FaultCounts) : null;
}

const byEmulator = new WeakMap<Namespaces, EmulatorMetrics>();

/** The metrics of the emulator these namespaces belong to (made on the first scrape). */
export function metricsOf(namespaces: Namespaces): EmulatorMetrics {
  let metrics = byEmulator.get(namespaces);
  if (!metrics) byEmulator.set(namespaces, (metrics = new EmulatorMetrics(namespaces)));
  return metrics;
}
