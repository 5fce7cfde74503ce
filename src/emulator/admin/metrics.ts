// GET /__admin/metrics: every namespace's series in one Prometheus text scrape (src/emulator/metrics/).
import { metricsOf } from '../metrics/metrics.js';
import { AdminText, type AdminContext } from './context.js';

export async function metricsHandler({ deps }: AdminContext): Promise<AdminText> {
  const { contentType, text } = await metricsOf(deps.namespaces()).scrape();
  return new AdminText(contentType, text);
}
