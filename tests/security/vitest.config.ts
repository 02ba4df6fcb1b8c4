import { stackProject } from "../../vitest.stack.ts";

// The attack suite (docs/security.md): each file boots its own stack and attacks it through the public
// origin, as a client with an ordinary API key would.
export default stackProject(import.meta.dirname, "security");
