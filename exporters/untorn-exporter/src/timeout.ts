/**
 * Settles like `p`, or rejects with `onTimeout()` after `ms`; `onExpire` runs at that moment (abort the
 * work, or clean up whatever `p` still delivers late).
 */
export function withTimeout<T>(
  p: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  onExpire?: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onExpire?.();
      reject(onTimeout());
    }, ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
