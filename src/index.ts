// Hermetic's public face: re-exports only. Nothing reachable from here may name better-sqlite3 or other server
// internals in its types (test/package/consumer.test.ts compiles a consumer without @types/better-sqlite3).
export { createEmulator, type Emulator, type EmulatorOptions, type FetchFunction } from './emulator/index.js';
export { startServer, type ServerHandle, type ServerOptions } from './emulator/serve/node.js';
export {
  createAdminClient,
  AdminClientError,
  type AdminClient,
  type AdminRoutes,
  type AdminRouteName,
  type FetchLike,
  type AdminClientOptions,
  type AdminHealth,
  type JsonValue,
  type RunStatus,
  type AdminNoFields,
  type AdminClockState,
  type AdminClockChange,
  type AdminSweepResult,
  type AdminRestartResult,
  type AdminGatewayState,
  type AdminGatewayChange,
  type AdminRunSummary,
  type AdminRunList,
  type AdminRunInfo,
  type AdminRunState,
  type AdminSubagentFields,
  type AdminDroppedEventName,
  type AdminAgentEvent,
  type AdminEventResult,
  type AdminApprovalNotification,
  type AdminShellApproval,
  type AdminApprovalRequest,
  type AdminApprovalEvent,
  type AdminUsage,
  type AdminCompletion,
  type AdminFinalAnswer,
  type AdminFailure,
  type AdminRaise,
  type AdminSteerPolicy,
  type AdminScenario,
  type AdminScenarioDocument,
  type AdminScenarioList,
  type AdminScenarioRemoval,
  type ScenarioDefault,
  type ScenarioMatch,
  type ScenarioMatcher,
  type ScenarioStep,
} from './emulator/admin/client.js';
export { loadScenarioFile, ScenarioSet } from './emulator/scenarios/index.js';
export { ControlledClock, EPOCH_MIN, EPOCH_MAX, type Clock, type Timer, type ControlledClockOptions } from './shared/clock.js';
export { HermeticError, ERROR_CODES, type ErrorCode } from './shared/errors.js';
export {
  createForwarder, hermeticHome, DATASET_TABLES, DATASET_VERSION,
  type Forwarder, type ForwarderOptions, type PassOptions, type StepResult,
} from './forwarder/index.js';
