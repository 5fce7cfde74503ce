// Hermetic's public face: re-exports only.
export { createEmulator, type Emulator, type EmulatorOptions } from './emulator/index.js';
export { startServer, type ServerHandle, type ServerOptions } from './emulator/serve/node.js';
export { createAdminClient, type AdminClient } from './emulator/admin/client.js';
export { ControlledClock, type Clock } from './shared/clock.js';
export { HermeticError, ERROR_CODES, type ErrorCode } from './shared/errors.js';
