// GET /__admin/metrics: every namespace's series in one Prometheus text scrape (src/emulator/metrics/).
import { AdminText, type AdminContext } from './context.js';

export async function metricsHandler({ deps }: AdminContext): Promise<AdminText> {
  const { contentType, text } = await deps.namespaces.scrapeMetrics();
  return new AdminText(contentType, text);
}
