/**
 * The operator's controls of a rollout. This read-only version only points at the CLI; the console's
 * Server Actions (approve, pause, resume, abort, revert) replace it. `canOperate` is computed on the
 * server from the session's role; the server checks the role again on every command.
 */
export function RolloutControls({
  canOperate,
}: {
  id: string;
  version: number;
  status: string;
  canOperate: boolean;
}) {
  if (!canOperate) return null;
  return (
    <p className="subtle" data-testid="rollout-controls">
      Actions: see <code>untorn rollout</code> in <a href="/docs/cli">docs/cli.md</a>.
    </p>
  );
}
