// The emulated gateway's settings: what Hermes reads from config.yaml and the environment, changeable at run time
// through POST /__admin/gateway. One mutable object shared by the API layer and the runs domain.

export interface ProfileSettings {
  /** That profile's own API_SERVER_KEY; null fails closed (every request 401). */
  apiKey: string | null;
}

export interface GatewaySettings {
  /** API_SERVER_KEY; null = Hermes's test-only unauthenticated listener. */
  apiKey: string | null;
  draining: boolean;
  /** gateway.api_server.max_concurrent_runs; 0 disables the cap. */
  maxConcurrentRuns: number;
  /** API_SERVER_MODEL_NAME, else the profile name, else hermes-agent. */
  modelName: string;
  /** The model the agent runs when a request names none (config.yaml `model.default`); null: the advertised name. */
  agentModel: string | null;
  /** API_SERVER_CORS_ORIGINS; empty means any Origin header is refused. */
  corsOrigins: string[];
  /** Named profiles served under /p/<name>/ (multiplexing is on when this has entries). */
  profiles: Map<string, ProfileSettings>;
}

/** Negative caps mean 0 (disabled), as Hermes reads them (spec runs-api §13). */
export const normaliseCap = (n: number): number => (n < 0 ? 0 : Math.floor(n));
