// What the SSE benchmark streams: tool.started events, produced SSE_BATCH per event-loop turn on both servers.
export const SSE_BATCH = 64;

/** The raw baseline's frame for event i: the same bytes the emulator writes (json.dumps spacing, data: framing). */
export function rawFrame(runId: string, i: number): string {
  const event = { event: 'tool.started', run_id: runId, timestamp: 1789169800 + i / 1000, tool: 'terminal', preview: 'ls -la /workspace' };
  return `data: ${JSON.stringify(event).replace(/,"/g, ', "').replace(/":/g, '": ')}\n\n`;
}
