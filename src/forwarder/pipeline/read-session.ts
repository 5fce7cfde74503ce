// One session read and projected: its records, nothing (deleted since the marks were read), or why it failed. The
// same function runs on the writing thread and in the read worker (read-worker.ts); the usage policy is judged after
// it, on the writing thread (project.ts).
import { projectSession, type Ledger, type Projection } from '../projector/index.js';
import type { StoreRef } from '../reader/discover.js';
import type { StoreReader } from '../reader/index.js';

export interface ReadContext {
  ref: Pick<StoreRef, 'path' | 'profile' | 'hermesHome'>;
  redact: boolean;
  origin: 'backfill' | 'forward';
}

/** What reading one session gave: its records, null when it is gone, or the error that keeps it in quarantine. */
export type SessionRead = Projection | null | { error: string };

/** Reads and projects one session in one read transaction; a failure is returned, never thrown. */
export function readSession(reader: StoreReader, id: string, ledger: Ledger | null, ctx: ReadContext): SessionRead {
  try {
    return reader.snapshot(() => {
      const session = reader.session(id);
      if (!session) return null;
      return projectSession({
        store: ctx.ref.path, profile: ctx.ref.profile, hermesHome: ctx.ref.hermesHome, session, messages: reader.messages(id),
        modelUsage: reader.modelUsage(id), parents: reader.parents(session), systemPrompt: reader.systemPrompt(session),
        dailyUsage: reader.dailyUsage(id), ledger, redact: ctx.redact, origin: ctx.origin,
      });
    });
  } catch (e) {
    return { error: (e as Error).message };
  }
}
