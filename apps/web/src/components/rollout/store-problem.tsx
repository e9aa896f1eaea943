/** The store cannot be read: rollouts live there, so the page says so instead of failing. */
export function RolloutStoreProblem({ error }: { error: string }) {
  return (
    <div className="banner banner-bad" role="alert" data-testid="rollout-store-error">
      <strong>The store is unavailable: rollouts are kept there and cannot be read now.</strong>
      {error}
      <p>Check the data directory (UNTORN_DATA_DIR) or DATABASE_URL; this page retries on every load.</p>
    </div>
  );
}
