// The dashboard's browser tests: the stories (test/stories), each a person's walk through its pages
// in real Chromium, against one stack and one Chromium started here for all of them. A story signs up
// accounts of its own, so it sees none of the others' data.
import { existsSync } from "node:fs";
import { describe } from "vitest";
import { CHROMIUM, useBrowserStack } from "./browser.ts";
import { auditLogStory } from "./stories/audit-log.ts";
import { brokenLinksStory } from "./stories/broken-links.ts";
import { dashboardStory } from "./stories/dashboard.ts";
import { dataPagesStory } from "./stories/data-pages.ts";
import { leaveStory } from "./stories/leave.ts";
import { manageStory } from "./stories/manage.ts";
import { recoveryStory } from "./stories/recovery.ts";
import { securityStory } from "./stories/security.ts";
import { smartLinksStory } from "./stories/smart-links.ts";
import { workspacesStory } from "./stories/workspaces.ts";

describe.skipIf(!existsSync(CHROMIUM))(
  "the dashboard in Chromium (skipped without /usr/bin/chromium: ./kurz test installs it)",
  () => {
    const web = useBrowserStack();
    dashboardStory(web);
    dataPagesStory(web);
    manageStory(web);
    workspacesStory(web);
    auditLogStory(web);
    recoveryStory(web);
    leaveStory(web);
    smartLinksStory(web);
    brokenLinksStory(web);

    securityStory(web);
  },
);
