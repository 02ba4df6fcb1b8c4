// The services' registrations with @kurz/testing (vitest.stack.ts says why), for the benchmarks that
// start stacks: they run as scripts, not under vitest, so no setup file runs for them.
import "../../services/analytics/test/register-stack.ts";
import "../../services/gateway/test/register-stack.ts";
import "../../services/management/test/register-stack.ts";
import "../../services/redirect/test/register-stack.ts";
