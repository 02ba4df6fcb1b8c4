import { stackProject } from "../../vitest.stack.ts";

export default stackProject(import.meta.dirname, "@kurz/cli");
