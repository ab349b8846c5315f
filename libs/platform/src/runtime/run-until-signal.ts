// Stops cleanly on SIGINT/SIGTERM (closing HTTP, the bus and the embedded database); a second
// signal, or a shutdown that hangs, exits at once.
export function runUntilSignal(shutdown: () => Promise<void>, graceMs = 15_000): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stderr.write(`received ${signal}, shutting down\n`);
    setTimeout(() => process.exit(1), graceMs).unref();
    shutdown().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
