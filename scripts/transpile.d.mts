// Types of scripts/transpile.mjs (plain JavaScript, so `npm install` can run it before anything is compiled).
export interface Esbuild {
  buildSync(options: Record<string, unknown>): unknown;
  version: string;
}
export function sourceFiles(dir: string): string[];
export function findEsbuild(): Esbuild | null;
export function transpile(esbuild: Esbuild, repo: string, outDir: string, sources?: string[]): void;
