import { stackProject } from "../../vitest.stack.ts";

export default stackProject(import.meta.dirname, "@kurz/gateway", {
  include: ["test/**/*.test.ts", "src/**/*.test.ts"],
});
