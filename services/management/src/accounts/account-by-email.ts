// Operators name a workspace by its id or its contact e-mail (`./kurz accounts:update`, imports,
// exports, overlays).
import type { Account, PrismaClient } from "@kurz/db";
import { conflict } from "@kurz/service-kit";
import { z } from "zod";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `name` is a workspace id rather than an e-mail address. */
export const isWorkspaceId = (name: string): boolean => UUID.test(name.trim());

/**
 * The workspace `name` names: by id, or by contact e-mail (trimmed, lower-cased); null when none.
 * A person who made several workspaces shares their e-mail among them: then the e-mail is ambiguous,
 * nothing is picked (409), and the id names one.
 */
export async function findAccountByEmail(
  db: Pick<PrismaClient, "account">,
  name: string,
): Promise<Account | null> {
  if (isWorkspaceId(name)) return db.account.findUnique({ where: { id: name.trim().toLowerCase() } });
  const normalised = name.trim().toLowerCase();
  const found = await db.account.findMany({
    where: { email: normalised },
    orderBy: { createdAt: "asc" },
    take: 2,
  });
  if (found.length > 1) {
    throw conflict(`Several workspaces have the e-mail ${normalised}; name one by its id`);
  }
  return found[0] ?? null;
}

/** A command's `--account`: a workspace id or an e-mail address; `required` is what it says when missing. */
export const accountOption = (required = "--account is required") =>
  z
    .string(required)
    .refine(
      (v) => isWorkspaceId(v) || z.email().safeParse(v).success,
      "--account must be the workspace's id or its e-mail address",
    );

/** The workspace a command's `--account` names; an error (`no workspace …`) when there is none. */
export async function accountNamed(db: Pick<PrismaClient, "account">, name: string): Promise<Account> {
  const account = await findAccountByEmail(db, name);
  if (!account) throw new Error(`no workspace ${name}`);
  return account;
}
