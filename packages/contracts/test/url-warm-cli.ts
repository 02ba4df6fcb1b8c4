// Prints url-warm.ts's disagreements as JSON: url.test.ts runs this under the machine's own Node
// when the tests run on another.
import { warmDisagreements } from "./url-warm.ts";

process.stdout.write(`${JSON.stringify({ node: process.version, disagreements: warmDisagreements() })}\n`);
