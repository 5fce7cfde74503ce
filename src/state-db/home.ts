// Where a Hermes home keeps each profile's store (spec state-db §2; hermes_cli/profiles.py get_profile_dir): the
// default profile is the home itself, `<home>/state.db`; a named profile is a home of its own under
// `<home>/profiles/<name>/`, and only a name Hermes's profile id pattern accepts is one.
import { join } from 'node:path';

/** hermes_cli/profiles.py _PROFILE_ID_RE: the names a profile folder can have (`default` is the home itself). */
export const HERMES_PROFILE_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The folder that is the profile's own Hermes home, or null for a name that is not a profile id. */
export function profileHome(home: string, profile: string): string | null {
  if (profile === 'default') return home;
  return HERMES_PROFILE_ID.test(profile) ? join(home, 'profiles', profile) : null;
}
