// Embedded chDB installs ClickHouse's handlers for the fatal signals whenever its engine starts. On
// SIGABRT that handler waits for a crash-report thread embedded chDB does not run, up to five minutes
// of sleep, before the process may die. Node ends a process out of V8 heap with abort(): without
// this, such a process printed V8's "Reached heap limit" and then hung for those minutes, serving
// nothing, before its supervisor could see it go and restart it.

/**
 * Puts SIGABRT back to the default action (end the process, at once): called after every engine
 * start, since each one installs chDB's handler again. Adding and removing a listener is how Node
 * sets a signal's action: libuv installs its own handler, and resets the action to the default when
 * the signal's last listener goes. When the process itself listens for SIGABRT, libuv's handler stays
 * (it returns, and abort() then ends the process).
 */
export function restoreDefaultAbort(): void {
  const none = () => {};
  process.on("SIGABRT", none);
  process.off("SIGABRT", none);
}
