export { languageMatches, preferredLanguage } from "./accept-language.ts";
export { type CompileOptions, compileRule, compileSmartLink, type SmartLinkSource } from "./compile.ts";
export { type Decision, decide, expiredDestination, ruleHolds, splitArm } from "./decide.ts";
export { forwardQuery } from "./forward-query.ts";
export { firstHolding, type RuleTable, ruleTable } from "./rule-table.ts";
export { type UniformSmartRecord, uniformSmartRecord } from "./uniform.ts";
export type { Visitor } from "./visitor.ts";
