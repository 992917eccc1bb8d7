import { given } from '../../../../test/support/decider.ts';
import { decideIdentity } from './identity.ts';

const live = { systemIdentifier: '7441234567890123456', timeline: 1, databaseOid: 16_384 };
const data = { system_identifier: '7441234567890123456', timeline: 1, database_oid: 16_384 };

describe("the database's identity", () => {
  test('the first record (a new database, or one upgraded from before the record) is no restore: previous is null', () => {
    given(null)
      .when((recorded) => decideIdentity(recorded, live))
      .then([{ streamId: 'database:identity', type: 'DatabaseIdentified', data: { ...data, previous: null } }]);
  });

  test('the identity recorded is found again: nothing is recorded', () => {
    given(live).when((recorded) => decideIdentity(recorded, live)).then([]);
  });

  test('another server, timeline or database (a restore, a point-in-time recovery, a failover, a copy) is recorded with the one before', () => {
    for (const changed of [{ systemIdentifier: '7441234567890123457' }, { timeline: 2 }, { databaseOid: 16_999 }]) {
      const now = { ...live, ...changed };
      given(live)
        .when((recorded) => decideIdentity(recorded, now))
        .then([
          {
            streamId: 'database:identity',
            type: 'DatabaseIdentified',
            data: { system_identifier: now.systemIdentifier, timeline: now.timeline, database_oid: now.databaseOid, previous: data },
          },
        ]);
    }
  });
});
