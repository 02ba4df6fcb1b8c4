// Prints url-warm.ts's disagreements as JSON: url.test.ts runs this under Node 22.
import { warmDisagreements } from "./url-warm.ts";

process.stdout.write(`${JSON.stringify({ node: process.version, disagreements: warmDisagreements() })}\n`);
