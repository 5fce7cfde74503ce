// The emulator's Prometheus metrics (GET /__admin/metrics): one prom-client registry per emulator (never the global
// default), every value read from the namespaces at scrape time — so a request costs a tally increment, and a
// namespace that is reset or forgotten takes its series with it (decision 0022). A scrape stays small however many
// namespaces there are: the default namespace and the TOP_NAMESPACES most active ones (by requests answered) have
// series of their own; every other namespace is summed into namespace="_other" (decision 0028).
import { Counter, Gauge, Registry } from 'prom-client';
import type { PyDict } from '../../shared/python/index.js';
import type { RequestOperation } from '../namespaces/operation.js';

/** Namespaces besides the default with series of their own. */
export const TOP_NAMESPACES = 20;
/** The label of the summed rest (not a valid namespace name: those start with a letter or digit). */
export const OTHER_NAMESPACES = '_other';

export interface MetricsText {
  readonly contentType: string;
  readonly text: string;
}

/** What metrics read of one namespace. */
export interface NamespaceMetrics {
  readonly name: string;
  readonly isDefault: boolean;
  readonly traffic: {
    readonly total: number;
    counts(): Iterable<[RequestOperation, number, number]>;
    readonly journal: { readonly size: number; readonly capacity: number; readonly evicted: number };
  };
  readonly registry: { readonly statuses: ReadonlyMap<string, PyDict> };
  readonly faults: { firedTotal(): number; list(): ReadonlyArray<{ readonly id: string; readonly fired: number; readonly namespace: string | null }> };
}

/** What metrics read of the emulator's namespaces. */
export interface MetricsSource {
  list(): Iterable<NamespaceMetrics>;
  readonly size: number;
  readonly max: number;
  readonly evicted: number;
}

/** The namespaces with series of their own, and the rest (summed under OTHER_NAMESPACES). */
function partition(source: MetricsSource): { shown: NamespaceMetrics[]; rest: NamespaceMetrics[] } {
  const shown: NamespaceMetrics[] = [];
  const others: NamespaceMetrics[] = [];
  for (const ns of source.list()) (ns.isDefault ? shown : others).push(ns);
  if (others.length <= TOP_NAMESPACES) return { shown: [...shown, ...others], rest: [] };
  others.sort((a, b) => b.traffic.total - a.traffic.total);
  return { shown: [...shown, ...others.slice(0, TOP_NAMESPACES)], rest: others.slice(TOP_NAMESPACES) };
}

export class EmulatorMetrics {
  readonly registry = new Registry();
  /** The partition of the scrape being collected (each collect() of one scrape sees the same one). */
  #current: { shown: NamespaceMetrics[]; rest: NamespaceMetrics[] } | null = null;

  constructor(private readonly source: MetricsSource) {
    const registers = [this.registry];
    const groups = (): Array<[string, NamespaceMetrics[]]> => {
      const { shown, rest } = (this.#current ??= partition(source));
      const out: Array<[string, NamespaceMetrics[]]> = shown.map((ns) => [ns.name, [ns]]);
      if (rest.length) out.push([OTHER_NAMESPACES, rest]);
      return out;
    };
    const requests = new Counter({
      name: 'hermetic_requests_total',
      help: 'Requests answered, by namespace (the default and the 20 most active; the rest summed as "_other"), operation (submit, get, events, approval, steer, stop, health, capabilities, sessions…, unsupported, admin, other) and HTTP status.',
      labelNames: ['namespace', 'operation', 'status'] as const,
      registers,
      collect() {
        requests.reset();
        for (const [label, members] of groups()) {
          for (const ns of members) {
            for (const [operation, status, n] of ns.traffic.counts()) requests.inc({ namespace: label, operation, status: String(status) }, n);
          }
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
        for (const [label, members] of groups()) {
          const byStatus = new Map<string, number>();
          for (const ns of members) {
            for (const dict of ns.registry.statuses.values()) {
              const status = dict.get('status');
              if (typeof status === 'string') byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
            }
          }
          for (const [status, n] of byStatus) runs.set({ namespace: label, status }, n);
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
        for (const [label, members] of groups()) {
          const fired = members.reduce((sum, ns) => sum + ns.faults.firedTotal(), 0);
          if (fired > 0 || label !== OTHER_NAMESPACES) faults.inc({ namespace: label }, fired);
        }
      },
    });
    const rules = new Counter({
      name: 'hermetic_fault_rule_fired_total',
      help: 'Requests each fault rule in place affected, by namespace and rule id (namespaces with series of their own; the rules for every namespace once, labelled *).',
      labelNames: ['namespace', 'fault_id'] as const,
      registers,
      collect() {
        rules.reset();
        for (const [label, members] of groups()) {
          if (label === OTHER_NAMESPACES) continue;
          for (const rule of members[0]!.faults.list()) {
            if (rule.namespace === null) rules.inc({ namespace: label, fault_id: rule.id }, rule.fired);
          }
        }
        // The rules for every namespace, once (every namespace lists them; the default is always shown first): one
        // rule, one count, whichever namespace it affected.
        for (const rule of groups()[0]?.[1][0]?.faults.list() ?? []) {
          if (rule.namespace !== null) rules.inc({ namespace: rule.namespace, fault_id: rule.id }, rule.fired);
        }
      },
    });
    const perNamespace = (name: string, help: string, value: (ns: NamespaceMetrics) => number) => {
      const gauge: Gauge<'namespace'> = new Gauge({
        name,
        help,
        labelNames: ['namespace'] as const,
        registers,
        collect() {
          gauge.reset();
          for (const [label, members] of groups()) gauge.set({ namespace: label }, members.reduce((sum, ns) => sum + value(ns), 0));
        },
      });
    };
    perNamespace('hermetic_journal_entries', 'Entries held in the request journal.', (ns) => ns.traffic.journal.size);
    perNamespace('hermetic_journal_capacity', "The request journal's cap (0: disabled; summed for \"_other\").", (ns) => ns.traffic.journal.capacity);
    perNamespace('hermetic_journal_evicted', 'Journal entries pushed out by newer ones since the journal was last cleared.', (ns) => ns.traffic.journal.evicted);
    /** A gauge of the whole emulator, read from the namespaces at each scrape. */
    const wholeGauge = (name: string, help: string, value: () => number) => {
      const gauge: Gauge = new Gauge({
        name,
        help,
        registers,
        collect() {
          gauge.set(value());
        },
      });
    };
    wholeGauge('hermetic_namespaces', 'Namespaces in use (the default included).', () => source.size);
    wholeGauge('hermetic_namespaces_max', 'The cap on namespaces (--max-namespaces).', () => source.max);
    const evicted = new Counter({
      name: 'hermetic_namespaces_evicted_total',
      help: 'Idle namespaces closed and forgotten to stay under the cap.',
      registers,
      collect() {
        evicted.reset();
        evicted.inc(source.evicted);
      },
    });
  }

  async scrape(): Promise<MetricsText> {
    this.#current = null;
    try {
      return { contentType: this.registry.contentType, text: await this.registry.metrics() };
    } finally {
      this.#current = null;
    }
  }
}

const byEmulator = new WeakMap<MetricsSource, EmulatorMetrics>();

/** The metrics of the emulator these namespaces belong to (made on the first scrape). */
export function metricsOf(source: MetricsSource): EmulatorMetrics {
  let metrics = byEmulator.get(source);
  if (!metrics) byEmulator.set(source, (metrics = new EmulatorMetrics(source)));
  return metrics;
}
