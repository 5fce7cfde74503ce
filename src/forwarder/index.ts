// The forwarder's public face: read Hermes's state.db stores into the embedded dataset.
export { createForwarder, type Forwarder, type ForwarderOptions, type PassOptions } from './pipeline/forwarder.js';
export { hermeticHome } from './home.js';
export type { StepResult } from './pipeline/step.js';
export { DATASET_TABLES, DATASET_VERSION } from './dataset/columns.js';
