// A PostgreSQL sink URL read once: what it shows and how it is told apart (no server needed).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { postgresTarget } from './url.js';

it('a schema given beside the URL is shown in it, so two sinks on one database never display alike', () => {
  const url = 'postgres://me:s3cret@db.example:5433/fleet?sslmode=require';
  const plain = postgresTarget(url);
  const team = postgresTarget(url, 'team');
  assert.equal(plain.display, 'postgres://me:***@db.example:5433/fleet?sslmode=require');
  assert.equal(team.display, 'postgres://me:***@db.example:5433/fleet?sslmode=require&schema=team');
  assert.notEqual(plain.id, team.id);
  // The option wins over the URL's own schema, and the display says the one used.
  assert.equal(postgresTarget('postgres://db.example/fleet?schema=old&sslmode=disable', 'new').display, 'postgres://db.example/fleet?sslmode=disable&schema=new');
  assert.equal(postgresTarget('postgres://db.example/fleet', 'team').display, 'postgres://db.example/fleet?schema=team');
  // The same schema both ways: the URL as given.
  assert.equal(postgresTarget('postgres://db.example/fleet?schema=team', 'team').display, 'postgres://db.example/fleet?schema=team');
  // A password given as a query parameter stays hidden.
  assert.equal(postgresTarget('postgres://me@db.example/fleet?password=s3cret', 'team').display.includes('s3cret'), false);
});

it('a URL that names its schema twice is refused, not read as the last one (a typo kept would ship to a schema nobody meant)', () => {
  for (const url of ['postgres://db.example/fleet?schema=a&schema=b', 'postgres://db.example/fleet?schema=a&sslmode=disable&%73chema=a']) {
    assert.throws(() => postgresTarget(url), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'HERMETIC_SINK_URL');
      assert.match(e.message, /names its schema 2 times; give \?schema= once\.$/);
      return true;
    });
  }
  // Once, or only beside the URL: read as before.
  assert.equal(postgresTarget('postgres://db.example/fleet?schema=a&sslmode=disable').schema, 'a');
  assert.equal(postgresTarget('postgres://db.example/fleet?schema=a', 'b').schema, 'b');
});
