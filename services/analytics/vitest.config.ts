import { stackProject } from "../../vitest.stack.ts";

export default stackProject(import.meta.dirname, "@kurz/analytics", {
  include: ["test/**/*.test.ts", "src/**/*.test.ts"],
});
