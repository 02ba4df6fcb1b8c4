// GET /api/v1/workspaces/:id/members: owners first, then by when they joined.
import { type Member, ROLES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type Caller, requireOwnWorkspace, toMember } from "./workspaces.ts";

export async function listMembers(prisma: PrismaClient, caller: Caller, id: string): Promise<Member[]> {
  requireOwnWorkspace(caller, id);
  const rows = await prisma.membership.findMany({
    where: { accountId: caller.accountId },
    include: { user: { select: { email: true } } },
    orderBy: [{ createdAt: "asc" }, { userId: "asc" }],
  });
  const rank = (role: string) => ROLES.indexOf(role as (typeof ROLES)[number]);
  return rows.sort((a, b) => rank(a.role) - rank(b.role)).map(toMember);
}
