// Types of scripts/test-locations.mjs (plain JavaScript: the test runner loads it without a build).
export function mapLocations(text: string, maps: Map<string, unknown>, cwd?: string): string;
export function sourceLocations(source: AsyncIterable<unknown>): AsyncGenerator<unknown>;
