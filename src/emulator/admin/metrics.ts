// GET /__admin/metrics: every namespace's series in one Prometheus text scrape (src/emulator/metrics/); DELETE starts
// this namespace's request counters over.
import { AdminText, type AdminContext } from './context.js';

export async function metricsHandler({ deps }: AdminContext): Promise<AdminText> {
  const { contentType, text } = await deps.namespaces.scrapeMetrics();
  return new AdminText(contentType, text);
}

/** DELETE /__admin/metrics: this namespace's request counters start over (a Prometheus counter reset); the journal stays. */
export function resetMetricsHandler({ deps }: AdminContext): { reset: string } {
  deps.namespace.resetMetrics();
  return { reset: deps.namespace.name };
}
