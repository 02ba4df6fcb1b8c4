// Embedded chDB installs ClickHouse's handlers for the fatal signals whenever its engine starts. Such
// a handler waits for a crash-report thread embedded chDB does not run, up to five minutes of sleep,
// before the process may die. Node ends a process out of V8 heap with abort() (SIGABRT): without
// this, such a process printed V8's "Reached heap limit" and then hung for those minutes, serving
// nothing, before its supervisor could see it go and restart it; a crash in chDB's own code (SIGSEGV
// and the like) hung the same way.

/** The signals a process dies of at once, as it would without chDB (chDB catches them all). */
export const FATAL_SIGNALS = ["SIGABRT", "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE"] as const;

/**
 * Puts the fatal signals back to their default action (end the process, at once): called after
 * every engine start, since each one installs chDB's handlers again. Adding and removing a listener
 * is how Node sets a signal's action: libuv installs its own handler, and resets the action to the
 * default when the signal's last listener goes. A signal the process itself listens for keeps its
 * listener (for SIGABRT that is enough: libuv's handler returns, and abort() then ends the process).
 * Node's own SIGSEGV handler, for WebAssembly's out-of-bounds traps, was replaced by chDB's already.
 */
export function restoreFatalSignals(): void {
  for (const signal of FATAL_SIGNALS) {
    const none = () => {};
    process.on(signal, none);
    process.off(signal, none);
  }
}
