import { given } from '../../../../test/support/decider.ts';
import { configDigest, decideConfigVersion } from './version.ts';

test('a configuration version is recorded with its content byte for byte and its digest; a missing parent is refused', () => {
  const input = { content: 'a: 1\n', format: 'yaml' as const, parent: 'cv-1' };
  given({ parentExists: true })
    .when((s) => decideConfigVersion(input, s.parentExists, 'cv-2'))
    .then([{ streamId: 'config:cv-2', type: 'ConfigVersionCreated', data: { config_version: 'cv-2', digest: configDigest('a: 1\n'), format: 'yaml', content: 'a: 1\n', parent: 'cv-1' } }]);
  given({ parentExists: false }).when((s) => decideConfigVersion(input, s.parentExists, 'cv-2')).thenFails('config_version_not_found', { config_version: 'cv-1' });
});
