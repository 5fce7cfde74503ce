// Scripted agents: scenarios read once (schema.ts), matched to new runs (match.ts) and played on the namespace's clock
// through the fake agent's own methods (book.ts); files in JSON or YAML (file.ts). Decision 0023.
export { ScenarioBook, type ScenarioBookSnapshot, type ScenarioHost } from './book.js';
export { loadScenarioFile, parseScenarioText, scenariosOption } from './file.js';
export { APPROVAL_TIMEOUT, ScenarioSet, fromJs, readScenarios } from './schema.js';
export type { AdminScenario, AdminScenarioDocument, AdminScenarioList, AdminScenarioRemoval, ScenarioDefault, ScenarioMatch, ScenarioMatcher, ScenarioStep } from './document.js';
