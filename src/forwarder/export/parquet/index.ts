// Parquet export of the dataset (decision 0037): `exportParquet` and what it reports.
export { exportParquet, EXPORTED_TABLES, type ExportRequest, type ExportSummary, type TableSummary } from './export.js';
export { windowDays, PARTITIONED } from './days.js';
export { readManifest, MANIFEST_FORMAT, type Manifest, type ManifestFile, type ManifestTable } from './manifest.js';
export { exportColumns, manifestSchema, epochMicros, epochDays, TIME_COLUMNS, DATE_COLUMNS, type ExportColumn } from './schema.js';
export { DEFAULT_BUDGET, type RowGroupBudget } from './write-file.js';
