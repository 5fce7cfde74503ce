// Usage reports: one aggregation over the usage ledger (query.ts), the windows people type (window.ts), and the
// ways a report reads (render.ts). The CLI (`hermetic report`) and, later, the web dashboard share them.
export { usageReport, hourLabel, reportCondition, reportTotals, reportRows, reportPeriod, checkDimensions, ledgerZone, MAX_TOP, DIMENSIONS, TIME_DIMENSIONS, CYCLE_DIMENSIONS, WEEKDAYS, MEASURES, FILTERS, ID_FILTERS, type Dimension, type FilterName, type ValueFilter, type ReportFilter, type ReportRequest, type ReportRow, type UsageReport } from './query.js';
export { summaryTables, type SummaryTables } from './summary.js';
export { parseFilters } from './filter.js';
export { planFilterMiss, describeFilterMiss, type FilterMiss } from './filter-miss.js';
export { resolveWindow, windowOrderProblem, parsePoint, addDays, course, previousWindow, windowDays, PERIODS, type Period, type Window } from './window.js';
export { renderSummary, renderTable, DEFAULT_WIDTH, renderCsv, renderMarkdown, formatCost, formatTokens, describePeriod, changeText, unreadText, unreadUnknownText, type SummaryView } from './render.js';
export { fleetRowIssues, planRowIssues, rowIssuesIn, type RowIssueCount } from './row-issues.js';
export { planUncosted, uncostedIn } from './uncosted.js';
export { fleetUnread, fleetUnreadUnknown, unreadDays, unreadIn, type UnreadSpan, type UnreadUnknown } from './unread.js';
