/** A state shown as text with a tone: colour is never the only signal. */
export function Badge({ text, tone }: { text: string; tone?: 'good' | 'warn' | 'bad' | 'info' }) {
  return <span className={`badge ${tone ?? 'info'}`}>{text}</span>;
}

const TONES: Record<string, 'good' | 'warn' | 'bad' | 'info'> = {
  online: 'good',
  active: 'good',
  converged: 'good',
  approved: 'good',
  running: 'good',
  stale: 'warn',
  draining: 'warn',
  paused: 'warn',
  waiting: 'info',
  pending: 'info',
  retrying: 'warn',
  restoring: 'warn',
  soaking: 'info',
  stopped: 'warn',
  passed: 'good',
  offline: 'bad',
  failed: 'bad',
  blocked: 'bad',
  ambiguous: 'bad',
  rejected: 'bad',
  expired: 'warn',
  cancelled: 'warn',
  rolled_back: 'warn',
  recovery_required: 'bad',
};

/** A badge whose tone follows the state's name. */
export const StateBadge = ({ state }: { state: string }) => <Badge text={state.replace(/_/g, ' ')} tone={TONES[state] ?? 'info'} />;
